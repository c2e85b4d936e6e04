import Foundation
import MigrationCore

/// `preflight plan SUBCOMMAND`: work on plans; `import` is the one there is.
enum PlanCommand {
    static let syntax = CommandSyntax(
        command: "preflight plan", flags: [], operands: 1...Int.max, operandName: "a subcommand (import)", operandIsSubcommand: true,
        usage: """
            usage: preflight plan import --from room|sqldelight|flyway|sql-dir DIR [--database CLASS] [--room-schemas DIR] [--name NAME] [--out PLAN.json]

            'preflight plan import --help' says more.
            """)

    static func main(_ arguments: [String]) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            let subcommand = parsed.operands[0]
            guard subcommand == "import" else {
                throw UsageError("unknown subcommand \"\(subcommand)\"; the one there is: import")
            }
            return PlanImportCommand.main(Array(parsed.operands.dropFirst()))
        }
    }
}

/// `preflight plan import --from room|sqldelight|flyway|sql-dir DIR [--database CLASS]
/// [--room-schemas DIR] [--name NAME] [--out PLAN.json]` (docs/CONTRACT.md §9): writes a plan made from the app's own
/// migration files (`PlanImport`), checked as every plan is (`PlanDecoder`).
enum PlanImportCommand {
    static let syntax = CommandSyntax(
        command: "preflight plan import",
        flags: [
            .init("from", value: "LAYOUT"), .init("database", value: "CLASS"), .init("room-schemas", value: "DIR"), .init("name", value: "NAME"),
            .init("out", value: "PLAN.json"),
        ],
        operands: 1...1, operandName: "the folder of migrations (DIR)",
        usage: """
            usage: preflight plan import --from room|sqldelight|flyway|sql-dir DIR [--database CLASS] [--room-schemas DIR] [--name NAME] [--out PLAN.json]

            Writes a plan (JSON, on stdout or to --out) from the migrations an app keeps:

              --from room           DIR is a Room app's Gradle module (or a folder holding it):
                                    schemas/<database class>/<version>.json and the Kotlin/Java
                                    sources. Steps: the oldest exported schema, then each Migration
                                    the app registers (the SQL of its execSQL calls) and each
                                    @AutoMigration (the SQL Room's compiler writes); runner room,
                                    each version's identity hash, the newest schema as the fresh
                                    install. SQL it cannot read statically is marked needs_review
                                    in the step and said on stderr.
              --database CLASS      with --from room: the @Database class, where DIR has several
              --from sqldelight     DIR is a SQLDelight module or its src/main (or commonMain) sqldelight folder:
                                    N.sqm migrates version N to N+1; databases/1.db holds version 1;
                                    the .sq files are the fresh install
              --from flyway         V<version>__<description>.sql files, in DIR or a folder under it
              --from sql-dir        .sql files in DIR whose names start with their version number
                                    (sqldelight, flyway, sql-dir: one step per file, named after it)
              --room-schemas DIR    Room's exported schemas (<version>.json): the newest is the fresh
                                    install, its identity hash the plan's, and the runner room
              --name NAME           the plan's name (default: the database's or the folder's)
              --out PLAN.json       write the plan there instead of stdout

            Where the app keeps its version in user_version (SQLDelight, Room), the plan's versions
            are the app's own; other numberings become steps 1, 2, 3 in order (a note on stderr
            says so). The plan is checked as every plan is before it is written.
            """)

    static func main(_ arguments: [String]) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            guard let layoutName = parsed.value("from") else {
                throw UsageError("--from room|sqldelight|flyway|sql-dir is required")
            }
            guard let layout = MigrationLayout(rawValue: layoutName) else {
                throw UsageError(
                    "--from must be \(MigrationLayout.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(layoutName)\"")
            }
            if layout == .room, parsed.value("room-schemas") != nil {
                throw UsageError("--room-schemas is for migrations kept as SQL files; --from room reads the schemas under DIR itself")
            }
            if layout != .room, parsed.value("database") != nil {
                throw UsageError("--database names a Room database class; it goes with --from room")
            }
            let directory = parsed.operands[0]
            let imported: ImportedPlan
            do throws(PlanImportError) {
                imported = try PlanImport(
                    layout: layout, directory: directory, roomSchemas: parsed.value("room-schemas"), database: parsed.value("database"),
                    name: parsed.value("name")
                ).makePlan()
            } catch {
                throw UsageError("cannot import \(directory): \(error.message)", suggestsHelp: false)
            }
            for note in imported.notes { printError("note: \(note)") }
            let plan: Plan
            do throws(PlanError) {
                plan = try PlanDecoder.decode(imported.document)
            } catch {
                throw UsageError("the plan made from \(directory) is not valid: \(error.message)", suggestsHelp: false)
            }
            guard let out = parsed.value("out") else {
                FileHandle.standardOutput.write(Data(imported.document))
                return 0
            }
            do {
                try Data(imported.document).write(to: URL(fileURLWithPath: out), options: .atomic)
            } catch {
                throw UsageError("cannot write \(out): \(error.localizedDescription)", suggestsHelp: false)
            }
            printError("wrote \(out): plan \(plan.name), \(plan.steps.count) step\(plan.steps.count == 1 ? "" : "s")")
            return 0
        }
    }
}
