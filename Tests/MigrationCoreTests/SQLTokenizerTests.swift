import CSQLite
import Testing
import TestSupport

@testable import MigrationCore

/// The one SQL tokenizer (SQLite's tokenize.c rules over UTF-8 bytes) and the statement
/// splitter built on it, checked token by token and, for splitting, against SQLite itself.
@Suite struct SQLTokenizerTests {
    /// The tokens of `sql` other than whitespace and comments, as (kind, text).
    private func tokens(_ sql: String) -> [Pair] {
        let tokenizer = SQLTokenizer(sql)
        return tokenizer.filter { !$0.isTrivia }.map { Pair($0.kind, tokenizer.text($0)) }
    }

    /// Every token of `sql`, whitespace and comments too.
    private func allTokens(_ sql: String) -> [Pair] {
        let tokenizer = SQLTokenizer(sql)
        return tokenizer.map { Pair($0.kind, tokenizer.text($0)) }
    }

    private struct Pair: Equatable, CustomStringConvertible {
        var kind: SQLToken.Kind
        var text: String
        init(_ kind: SQLToken.Kind, _ text: String) {
            self.kind = kind
            self.text = text
        }
        var description: String { "\(kind) \(text.debugDescription)" }
    }

    // MARK: - Token kinds

    @Test func readsEachKindOfToken() {
        #expect(allTokens("SELECT a, \"b\" FROM t WHERE c = 'x' AND d = x'00ff' OR e = ?1 -- end") == [
            Pair(.keyword, "SELECT"), Pair(.whitespace, " "), Pair(.identifier, "a"), Pair(.punctuation, ","),
            Pair(.whitespace, " "), Pair(.quotedIdentifier, "\"b\""), Pair(.whitespace, " "), Pair(.keyword, "FROM"),
            Pair(.whitespace, " "), Pair(.identifier, "t"), Pair(.whitespace, " "), Pair(.keyword, "WHERE"),
            Pair(.whitespace, " "), Pair(.identifier, "c"), Pair(.whitespace, " "), Pair(.punctuation, "="),
            Pair(.whitespace, " "), Pair(.string, "'x'"), Pair(.whitespace, " "), Pair(.keyword, "AND"),
            Pair(.whitespace, " "), Pair(.identifier, "d"), Pair(.whitespace, " "), Pair(.punctuation, "="),
            Pair(.whitespace, " "), Pair(.blob, "x'00ff'"), Pair(.whitespace, " "), Pair(.keyword, "OR"),
            Pair(.whitespace, " "), Pair(.identifier, "e"), Pair(.whitespace, " "), Pair(.punctuation, "="),
            Pair(.whitespace, " "), Pair(.variable, "?1"), Pair(.whitespace, " "), Pair(.comment, "-- end"),
        ])
    }

    @Test func keywordsAreWhatSQLiteCallsKeywords() {
        #expect(tokens("select SeLeCt key temp rowid notes end_ x") == [
            Pair(.keyword, "select"), Pair(.keyword, "SeLeCt"), Pair(.keyword, "key"), Pair(.keyword, "temp"),
            Pair(.identifier, "rowid"), Pair(.identifier, "notes"), Pair(.identifier, "end_"), Pair(.identifier, "x"),
        ])
    }

    @Test func everyByteFrom0x80IsAnIdentifierCharacter() {
        #expect(tokens("SELECT café, naïve_1, 日本, a$b, _x FROM t") == [
            Pair(.keyword, "SELECT"), Pair(.identifier, "café"), Pair(.punctuation, ","), Pair(.identifier, "naïve_1"),
            Pair(.punctuation, ","), Pair(.identifier, "日本"), Pair(.punctuation, ","), Pair(.identifier, "a$b"),
            Pair(.punctuation, ","), Pair(.identifier, "_x"), Pair(.keyword, "FROM"), Pair(.identifier, "t"),
        ])
        // A no-break space (C2 A0) is not whitespace to SQLite: it is part of the word.
        #expect(tokens("a\u{00A0}b") == [Pair(.identifier, "a\u{00A0}b")])
        // A word of bytes >= 0x80 only, and a combining mark after a quote (its own word).
        #expect(tokens("ünïcödé 'a'\u{0301}") == [
            Pair(.identifier, "ünïcödé"), Pair(.string, "'a'"), Pair(.identifier, "\u{0301}"),
        ])
    }

    @Test func numbersAsSQLiteReadsThem() {
        #expect(tokens("1e-5 .5 0x1F 1.5E+10 12 3. 1e5") == [
            Pair(.number, "1e-5"), Pair(.number, ".5"), Pair(.number, "0x1F"), Pair(.number, "1.5E+10"),
            Pair(.number, "12"), Pair(.number, "3."), Pair(.number, "1e5"),
        ])
        // A decimal number run into identifier characters is one illegal token; an
        // exponent needs a digit; a hex number ends at its last hex digit (SQLite 3.40).
        #expect(tokens("1abc 1e 1e+ 0x 0x1Fg 1.2.3 1_000") == [
            Pair(.illegal, "1abc"), Pair(.illegal, "1e"), Pair(.illegal, "1e"), Pair(.punctuation, "+"),
            Pair(.illegal, "0x"), Pair(.number, "0x1F"), Pair(.identifier, "g"), Pair(.number, "1.2"), Pair(.number, ".3"),
            Pair(.illegal, "1_000"),
        ])
        #expect(tokens("a.b") == [Pair(.identifier, "a"), Pair(.punctuation, "."), Pair(.identifier, "b")])
    }

    @Test func blobs() {
        #expect(tokens("x'00ff' X'AB' x'' x'0' x'zz' x xyz") == [
            Pair(.blob, "x'00ff'"), Pair(.blob, "X'AB'"), Pair(.blob, "x''"), Pair(.illegal, "x'0'"),
            Pair(.illegal, "x'zz'"), Pair(.identifier, "x"), Pair(.identifier, "xyz"),
        ])
    }

    @Test func fourQuoteStylesWithDoubledQuotes() {
        let sql = #"'it''s' "a""b" `c``d` [e f] [g""h]"#
        let tokenizer = SQLTokenizer(sql)
        let found = tokenizer.filter { !$0.isTrivia }
        #expect(found.map(\.kind) == [.string, .quotedIdentifier, .quotedIdentifier, .quotedIdentifier, .quotedIdentifier])
        #expect(found.map(tokenizer.unquoted) == ["it's", #"a"b"#, "c`d", "e f", #"g""h"#])
        // `]` cannot be doubled: `[a]]` is a name and a stray `]`.
        #expect(tokens("[a]]") == [Pair(.quotedIdentifier, "[a]"), Pair(.illegal, "]")])
        // Unterminated quotes run to the end and are illegal.
        #expect(tokens("SELECT 'abc; def") == [Pair(.keyword, "SELECT"), Pair(.illegal, "'abc; def")])
        #expect(tokens("\"a\"\"") == [Pair(.illegal, "\"a\"\"")])
        #expect(tokens("[abc") == [Pair(.illegal, "[abc")])
    }

    @Test func commentsInsideAndAtTheEnd() {
        #expect(allTokens("a/* x; */b--c;\nd") == [
            Pair(.identifier, "a"), Pair(.comment, "/* x; */"), Pair(.identifier, "b"), Pair(.comment, "--c;"),
            Pair(.whitespace, "\n"), Pair(.identifier, "d"),
        ])
        #expect(allTokens("a -- to the end") == [Pair(.identifier, "a"), Pair(.whitespace, " "), Pair(.comment, "-- to the end")])
        #expect(allTokens("a /* unterminated; b") == [
            Pair(.identifier, "a"), Pair(.whitespace, " "), Pair(.comment, "/* unterminated; b"),
        ])
        #expect(allTokens("/**/ /*/ x") == [Pair(.comment, "/**/"), Pair(.whitespace, " "), Pair(.comment, "/*/ x")])
        // "/*" as the last two bytes is a slash and a star, as in tokenize.c.
        #expect(allTokens("a/*") == [Pair(.identifier, "a"), Pair(.punctuation, "/"), Pair(.punctuation, "*")])
    }

    @Test func parameters() {
        #expect(tokens("? ?12 :name @name $name #name $a::b $a(x) :") == [
            Pair(.variable, "?"), Pair(.variable, "?12"), Pair(.variable, ":name"), Pair(.variable, "@name"),
            Pair(.variable, "$name"), Pair(.variable, "#name"), Pair(.variable, "$a::b"), Pair(.variable, "$a(x)"),
            Pair(.illegal, ":"),
        ])
        #expect(tokens("$a(x y)") == [Pair(.illegal, "$a(x"), Pair(.identifier, "y"), Pair(.punctuation, ")")])
    }

    @Test func operators() {
        let marks = ["||", "->", "->>", "<=", "<>", "!=", "==", "<<", ">>", ">=", "<", ">", "=", "|", "&", "~", "+", "-", "*", "/", "%", ",", ".", "(", ")", ";"]
        #expect(tokens(marks.joined(separator: " ")) == marks.map { Pair(.punctuation, $0) })
        #expect(tokens("a||b->>'$.c'") == [
            Pair(.identifier, "a"), Pair(.punctuation, "||"), Pair(.identifier, "b"), Pair(.punctuation, "->>"),
            Pair(.string, "'$.c'"),
        ])
        #expect(tokens("! \\ ^ { }") == ["!", "\\", "^", "{", "}"].map { Pair(.illegal, $0) })
    }

    @Test func whitespaceAsSQLiteReadsIt() {
        #expect(allTokens("\t\n\u{0C}\r a") == [Pair(.whitespace, "\t\n\u{0C}\r "), Pair(.identifier, "a")])
        // A vertical tab continues whitespace but cannot start it.
        #expect(allTokens(" \u{0B}a\u{0B}") == [Pair(.whitespace, " \u{0B}"), Pair(.identifier, "a"), Pair(.illegal, "\u{0B}")])
        // A byte order mark is whitespace.
        #expect(allTokens("\u{FEFF}SELECT") == [Pair(.whitespace, "\u{FEFF}"), Pair(.keyword, "SELECT")])
        // SQLite stops at a NUL; here it is one illegal token and reading goes on.
        #expect(tokens("SELECT 1\u{0}; x") == [
            Pair(.keyword, "SELECT"), Pair(.number, "1"), Pair(.illegal, "\u{0}"), Pair(.punctuation, ";"), Pair(.identifier, "x"),
        ])
        // A NUL inside a quote ends it there, as SQLite's end of input would.
        #expect(tokens("'a\u{0}b'") == [Pair(.illegal, "'a"), Pair(.illegal, "\u{0}"), Pair(.identifier, "b"), Pair(.illegal, "'")])
    }

    @Test func tokensTileAnyText() {
        var random = SplitMix64(seed: 7)
        let pieces = ["'", "\"", "`", "[", "]", "-", "/", "*", ";", "x", "e", "1", ".", "$", ":", "@", "?", "#", "(", ")",
            " ", "\n", "\u{0B}", "\u{0}", "é", "\u{FEFF}", "END", "CREATE", "TRIGGER", "!", "=", "<", ">", "|", "0x"]
        for _ in 0..<500 {
            let text = (0..<random.below(40)).map { _ in pieces[random.below(pieces.count)] }.joined()
            let tokenizer = SQLTokenizer(text)
            var position = 0
            for token in tokenizer {
                #expect(token.range.lowerBound == position && !token.range.isEmpty, "\(text.debugDescription)")
                position = token.range.upperBound
            }
            #expect(position == tokenizer.bytes.count, "\(text.debugDescription)")
            var previousEnd = 0
            for range in tokenizer.statementRanges() {
                #expect(range.lowerBound >= previousEnd && !range.isEmpty, "\(text.debugDescription)")
                previousEnd = range.upperBound
            }
        }
    }

    // MARK: - Statements

    @Test func splitsAtSemicolonsOutsideStringsCommentsAndTriggerBodies() {
        #expect(SQLText.statements(in: "SELECT 1; SELECT 2;") == ["SELECT 1", "SELECT 2"])
        #expect(SQLText.statements(in: "SELECT ';', \"a;b\", [c;d], `e;f`; -- a;b\nSELECT 2 /* ; */ ;")
            == ["SELECT ';', \"a;b\", [c;d], `e;f`", "-- a;b\nSELECT 2 /* ; */"])
        #expect(SQLText.statements(in: """
            CREATE TEMP TRIGGER t AFTER INSERT ON a BEGIN
              INSERT INTO b VALUES (new.x); -- end;
              UPDATE b SET y = CASE WHEN new.x THEN 'END;' ELSE 2 END;
            END; SELECT 1
            """) == [
                "CREATE TEMP TRIGGER t AFTER INSERT ON a BEGIN\n  INSERT INTO b VALUES (new.x); -- end;\n  UPDATE b SET y = CASE WHEN new.x THEN 'END;' ELSE 2 END;\nEND",
                "SELECT 1",
            ])
        #expect(SQLText.statements(in: "SELECT 1; /* SELECT 2;") == ["SELECT 1"])
        #expect(SQLText.statements(in: " ;; -- only a comment;\n /* and; another */ ") == [])
        #expect(SQLText.statements(in: "") == [])
    }

    /// Splits `script` with `sqlite3_prepare_v2`'s tail pointer: for each statement SQLite
    /// finds, where its text ends without the `;` and whitespace after it.
    private func preparedEnds(_ script: String, on connection: Connection) throws -> [Int] {
        let bytes = Array(script.utf8)
        var ends: [Int] = []
        try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { characters in
                guard let base = characters.baseAddress else { return }
                var offset = 0
                while offset < characters.count {
                    var statement: OpaquePointer?
                    var tail: UnsafePointer<CChar>?
                    let code = sqlite3_prepare_v2(
                        connection.handle, base + offset, Int32(characters.count - offset), &statement, &tail)
                    sqlite3_finalize(statement)
                    guard code == SQLITE_OK, let tail else {
                        throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(connection.handle)), sql: script)
                    }
                    let next = tail - base
                    if statement != nil { ends.append(contentEnd(bytes, offset..<next)) }
                    guard next > offset else { break }
                    offset = next
                }
            }
        }
        return ends
    }

    /// Splits `script` as Preflight used to, calling `sqlite3_complete` on the text so far
    /// at each `;` (quadratic, fine for short scripts): where each non-blank piece ends.
    private func completeEnds(_ script: String) -> [Int] {
        let bytes = Array(script.utf8)
        var pieces: [Range<Int>] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ";") {
            let complete = String(decoding: bytes[start...index], as: UTF8.self).withCString { sqlite3_complete($0) != 0 }
            if complete {
                pieces.append(start..<(index + 1))
                start = index + 1
            }
        }
        pieces.append(start..<bytes.count)
        return pieces.filter { range in
            let piece = SQLTokenizer(String(decoding: bytes[range], as: UTF8.self))
            return piece.contains { !$0.isTrivia && !piece.matches($0, ";") }
        }.map { contentEnd(bytes, $0) }
    }

    /// The end of `range` once trailing ASCII whitespace and `;` are dropped.
    private func contentEnd(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        var end = range.upperBound
        while end > range.lowerBound, [0x20, 0x09, 0x0A, 0x0C, 0x0D, UInt8(ascii: ";")].contains(bytes[end - 1]) { end -= 1 }
        return end
    }

    private func splitterEnds(_ script: String) -> [Int] {
        SQLTokenizer(script).statementRanges().map(\.upperBound)
    }

    /// A script of `count` statements built from pieces that put `;` where a naive split
    /// goes wrong: strings, quoted names, comments, trigger bodies with CASE ... END.
    private func generatedScript(_ random: inout SplitMix64, trigger: inout Int) -> String {
        let plain = [
            "SELECT 1", "SELECT 'a;b'", "SELECT 'it''s; ok'", "SELECT \"a\" FROM t", "SELECT a AS \"x;y\" FROM t",
            "SELECT a AS [x;y] FROM t", "SELECT a AS `x;``y` FROM t", "INSERT INTO t VALUES (1, ';')",
            "UPDATE t SET b = CASE WHEN a > 0 THEN 'end;' ELSE 'x' END", "SELECT x'00ff', 1e-5, .5, 0x1F",
            "EXPLAIN SELECT 1", "EXPLAIN QUERY PLAN SELECT a FROM t", "CREATE TABLE IF NOT EXISTS v(a, [end])",
            "CREATE VIEW w AS SELECT a AS \"end\" FROM t", "SELECT 1 AS end", "SELECT a FROM t /* ; END; */ WHERE b = ';'",
            "SELECT a -- ;END;\n FROM t", "SELECT CASE a WHEN 1 THEN 2 END FROM t",
        ]
        let body = [
            "INSERT INTO u VALUES (new.a)", "UPDATE u SET x = CASE WHEN new.a THEN 1 ELSE 2 END",
            "SELECT CASE new.a WHEN 1 THEN 'END;' END", "DELETE FROM u WHERE x = ';'", "SELECT 1 AS end",
            "UPDATE u SET x = 1 /* ; END; */", "INSERT INTO u SELECT b FROM t -- ; end;\n",
        ]
        let heads = ["CREATE TRIGGER", "CREATE TEMP TRIGGER", "CREATE TEMPORARY TRIGGER IF NOT EXISTS", "create trigger"]
        let separators = [";", ";\n", " ; ", ";\n-- a comment; with END;\n", "; /* c; END; */ ", ";;", "\n;\n", ";\t"]
        let endings = ["", ";", "; -- trailing; comment", "; /* unterminated ; END;", "\n", ";\n\n"]
        var statements: [String] = []
        for _ in 0..<(1 + random.below(6)) {
            if random.below(3) == 0 {
                trigger += 1
                let statementsInBody = (0..<(1 + random.below(3))).map { _ in body[random.below(body.count)] + ";" }
                statements.append(
                    "\(heads[random.below(heads.count)]) tr\(trigger) AFTER INSERT ON t BEGIN "
                        + statementsInBody.joined(separator: random.below(2) == 0 ? " " : "\n  ") + " END")
            } else {
                statements.append(plain[random.below(plain.count)])
            }
        }
        var script = random.below(3) == 0 ? "-- leading; comment\n" : ""
        for (index, statement) in statements.enumerated() {
            script += statement
            script += index == statements.count - 1 ? endings[random.below(endings.count)] : separators[random.below(separators.count)]
        }
        return script
    }

    @Test func splitsAsSQLiteDoesOnGeneratedScripts() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t(a, b); CREATE TABLE u(x)")
        var random = SplitMix64(seed: 2024)
        var trigger = 0
        for _ in 0..<400 {
            let script = generatedScript(&random, trigger: &trigger)
            let ours = splitterEnds(script)
            #expect(ours == (try preparedEnds(script, on: connection)), "\(script)")
            #expect(ours == completeEnds(script), "\(script)")
        }
    }

    @Test func splitsAsSQLiteDoesOnHandPickedScripts() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t(a, b); CREATE TABLE u(x)")
        let scripts = [
            "SELECT 1;SELECT 2",
            "CREATE TRIGGER a AFTER INSERT ON t BEGIN SELECT 1; END;SELECT 2;",
            "CREATE TRIGGER a AFTER INSERT ON t BEGIN SELECT CASE WHEN 1 THEN 2 END; SELECT 3; END; SELECT 4",
            "CREATE TRIGGER a AFTER INSERT ON t BEGIN SELECT 1; END -- c\n; SELECT 2",
            "CREATE TRIGGER a AFTER INSERT ON t BEGIN SELECT 1; /* c */ END /* ; */ ; SELECT 2",
            "CREATE TRIGGER \"end\" AFTER INSERT ON t BEGIN SELECT 1 end; END; SELECT 2",
            "CREATE TRIGGER [tr;] AFTER INSERT ON t WHEN new.a = ';' BEGIN SELECT ';'; END;",
            "EXPLAIN CREATE TRIGGER a AFTER INSERT ON t BEGIN SELECT 1; END; SELECT 2",
            "CREATE TABLE trigger_log(x); SELECT 1; SELECT 2",
            "SELECT 'a'';'';'; SELECT 1 AS \"b\"\";\"; SELECT 1 AS `c``;`",
            "SELECT 1 -- no newline at the end; SELECT 2",
            "SELECT 1; /* never closed; SELECT 2;",
            "SELECT 1;\n\n;\n-- only comments after;\n/* ; */",
            "/* leading */ SELECT 1; -- one\n-- two\nSELECT 2",
            // Where complete.c's own scan and the parser disagree, the parser is followed: a
            // vertical tab after a space and a byte order mark are whitespace.
            "CREATE \u{0B}TRIGGER a AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END; SELECT 3",
            "\u{FEFF}CREATE TRIGGER a AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END; SELECT 3",
        ]
        for script in scripts {
            #expect(splitterEnds(script) == (try preparedEnds(script, on: connection)), "\(script)")
        }
        // The old split (sqlite3_complete at each `;`) cut those two triggers short.
        #expect(completeEnds(scripts[scripts.count - 2]) != splitterEnds(scripts[scripts.count - 2]))
        #expect(completeEnds(scripts[scripts.count - 1]) != splitterEnds(scripts[scripts.count - 1]))
    }

    /// Regression test for the quadratic split: calling `sqlite3_complete` at every `;`
    /// rescanned the statement so far each time (30,000 semicolons in one literal took
    /// 1.4 s and 90,000 took 10 s, so these 1,000,000 would take about twenty minutes). One
    /// pass finishes at once; nothing here is timed.
    @Test func splitsA4MBLiteralOfSemicolonsInOnePass() {
        let literal = String(repeating: "abc;", count: 1_000_000)
        let script = "INSERT INTO t VALUES ('\(literal)'); SELECT 2"
        let tokenizer = SQLTokenizer(script)
        #expect(tokenizer.filter { !$0.isTrivia }.count == 10)
        let statements = SQLText.statements(in: script)
        #expect(statements.count == 2)
        #expect(statements.first?.utf8.count == "INSERT INTO t VALUES ('')".utf8.count + literal.utf8.count)
        #expect(statements.last == "SELECT 2")
    }
}
