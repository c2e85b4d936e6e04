/// How a platform builds its SQLite: the compile options that decide which functions and
/// which syntax exist and what a new file gets, beyond what the version decides. A device
/// profile names its build (`sqlite_build`); the engines `scripts/build-engines` makes are
/// built with these options, and `EngineBuildTests` reads each engine's
/// `PRAGMA compile_options` back against this table. docs/FIDELITY.md has every source.
public enum SQLiteBuild: String, Sendable, CaseIterable, Codable {
    /// AOSP's `external/sqlite` (`dist/Android.bp`), Android 9 to 15.
    case android
    /// Apple's system SQLite, as its `PRAGMA compile_options` reads on iOS and macOS.
    case ios
    /// The SQLite this binary links (Debian's), with Debian's options: what `default` runs on.
    case host

    /// The options the platform builds with, each with where it was read. Empty for `host`,
    /// whose options are Debian's (`PRAGMA compile_options` on the machine).
    public var options: [CompileOption] {
        switch self {
        case .android: return CompileOption.android
        case .ios: return CompileOption.ios
        case .host: return []
        }
    }

    /// `sqrt`, `log`, `pow` and the other math functions (SQLITE_ENABLE_MATH_FUNCTIONS, 3.35+).
    public var hasMathFunctions: Bool { self == .host || has("SQLITE_ENABLE_MATH_FUNCTIONS") }
    /// `UPDATE`/`DELETE ... ORDER BY ... LIMIT` (SQLITE_ENABLE_UPDATE_DELETE_LIMIT).
    public var hasUpdateDeleteLimit: Bool { has("SQLITE_ENABLE_UPDATE_DELETE_LIMIT") }

    private func has(_ name: String) -> Bool { options.contains { $0.name == name } }

    /// One `-D` option of a platform's build.
    public struct CompileOption: Sendable, Equatable {
        /// As it is passed to the compiler, without `-D`: `SQLITE_DEFAULT_AUTOVACUUM`.
        public let name: String
        /// Its value, nil for a bare `-DNAME`.
        public let value: String?
        /// Where the option was read (the key of docs/FIDELITY.md's list of sources).
        public let source: Source

        init(_ name: String, _ value: String? = nil, _ source: Source) {
            self.name = name
            self.value = value
            self.source = source
        }

        /// How `PRAGMA compile_options` spells it: the name without `SQLITE_`, `=value` after it.
        public var reported: String {
            let bare = name.hasPrefix("SQLITE_") ? String(name.dropFirst("SQLITE_".count)) : name
            return value.map { "\(bare)=\($0)" } ?? bare
        }

        /// Where a platform's options were published.
        public enum Source: String, Sendable {
            /// AOSP `platform/external/sqlite` `dist/Android.bp` as of 2024-03-25 (commit
            /// 3cfcc6cc, Android 15, SQLite 3.44), `sqlite-minimal-defaults` and
            /// `sqlite-defaults`; the same list stands in Android 11's (commit 0266d17).
            case aospAndroidBP2024 = "AOSP external/sqlite dist/Android.bp (3cfcc6cc, 2024-03-25)"
            /// Apple's SQLite on iOS 26 (3.51.0), its `PRAGMA compile_options` as published in
            /// GRDB.swift issue #1874; each option used here also stands in macOS 10.14's list
            /// (datasette issue #396) but `ENABLE_MATH_FUNCTIONS` (newer than that SQLite) and
            /// `ENABLE_STMT_SCANSTATUS`.
            case applePragmaCompileOptions = "PRAGMA compile_options on iOS 26 (GRDB.swift #1874) and macOS 10.14 (datasette #396)"
        }

        static let android: [CompileOption] = [
            .init("SQLITE_DEFAULT_AUTOVACUUM", "1", .aospAndroidBP2024),
            .init("SQLITE_DEFAULT_JOURNAL_SIZE_LIMIT", "1048576", .aospAndroidBP2024),
            .init("SQLITE_DEFAULT_LEGACY_ALTER_TABLE", nil, .aospAndroidBP2024),
            .init("SQLITE_SECURE_DELETE", nil, .aospAndroidBP2024),
            .init("SQLITE_TEMP_STORE", "3", .aospAndroidBP2024),
            .init("SQLITE_THREADSAFE", "2", .aospAndroidBP2024),
            .init("SQLITE_POWERSAFE_OVERWRITE", "1", .aospAndroidBP2024),
            .init("SQLITE_DEFAULT_FILE_FORMAT", "4", .aospAndroidBP2024),
            .init("SQLITE_DEFAULT_FILE_PERMISSIONS", "0600", .aospAndroidBP2024),
            .init("SQLITE_ENABLE_MEMORY_MANAGEMENT", "1", .aospAndroidBP2024),
            .init("SQLITE_ENABLE_FTS3", nil, .aospAndroidBP2024),
            .init("SQLITE_ENABLE_FTS3_BACKWARDS", nil, .aospAndroidBP2024),
            .init("SQLITE_ENABLE_FTS4", nil, .aospAndroidBP2024),
            .init("SQLITE_ENABLE_BATCH_ATOMIC_WRITE", nil, .aospAndroidBP2024),
            .init("SQLITE_ENABLE_BYTECODE_VTAB", nil, .aospAndroidBP2024),
            .init("SQLITE_ENABLE_DBSTAT_VTAB", nil, .aospAndroidBP2024),
            .init("SQLITE_ALLOW_ROWID_IN_VIEW", nil, .aospAndroidBP2024),
            .init("SQLITE_OMIT_BUILTIN_TEST", nil, .aospAndroidBP2024),
            .init("SQLITE_OMIT_LOAD_EXTENSION", nil, .aospAndroidBP2024),
        ]

        static let ios: [CompileOption] = [
            .init("SQLITE_DEFAULT_CKPTFULLFSYNC", nil, .applePragmaCompileOptions),
            .init("SQLITE_DEFAULT_JOURNAL_SIZE_LIMIT", "32768", .applePragmaCompileOptions),
            .init("SQLITE_DEFAULT_PAGE_SIZE", "4096", .applePragmaCompileOptions),
            .init("SQLITE_DEFAULT_SYNCHRONOUS", "2", .applePragmaCompileOptions),
            .init("SQLITE_DEFAULT_WAL_SYNCHRONOUS", "1", .applePragmaCompileOptions),
            .init("SQLITE_THREADSAFE", "2", .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_API_ARMOR", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_COLUMN_METADATA", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_DBSTAT_VTAB", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_FTS3", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_FTS3_PARENTHESIS", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_FTS3_TOKENIZER", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_FTS4", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_FTS5", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_MATH_FUNCTIONS", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_PREUPDATE_HOOK", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_RTREE", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_SESSION", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_SNAPSHOT", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_STMT_SCANSTATUS", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_UNKNOWN_SQL_FUNCTION", nil, .applePragmaCompileOptions),
            .init("SQLITE_ENABLE_UPDATE_DELETE_LIMIT", nil, .applePragmaCompileOptions),
            .init("SQLITE_MAX_LENGTH", "2147483645", .applePragmaCompileOptions),
            .init("SQLITE_MAX_MMAP_SIZE", "1073741824", .applePragmaCompileOptions),
            .init("SQLITE_MAX_VARIABLE_NUMBER", "500000", .applePragmaCompileOptions),
            .init("SQLITE_OMIT_LOAD_EXTENSION", nil, .applePragmaCompileOptions),
            .init("SQLITE_STMTJRNL_SPILL", "131072", .applePragmaCompileOptions),
            .init("SQLITE_USE_URI", nil, .applePragmaCompileOptions),
        ]
    }
}
