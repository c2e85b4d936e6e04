/// `preflight`: reads the command and hands the rest of the command line to it. Each
/// command's own syntax reads its flags; this level knows only `--help` and `--version`.
public enum PreflightCommand {
    static let syntax = CommandSyntax(
        command: "preflight", flags: [], operands: 0...Int.max, operandName: "a command (run, capacity, matrix, serve, synthesize, plan import)", operandIsSubcommand: true,
        usage: """
            usage: preflight COMMAND [options]

            commands:
              run          rehearse a migration plan on a copy of a database; print the report
              capacity     find how large a database can be before the migration stops completing
              matrix       rehearse every starting version on every device (and 'matrix merge' for shards)
              serve        start the HTTP service
              synthesize   build a database at a plan's version, filled with made-up rows
              calibrate    print a device profile of this machine (its speed model, fitted here)
              plan import  write a plan from an app's own migrations (Room, SQLDelight, Flyway, numbered SQL)
              worker       internal: one process of a rehearsal, started by run and serve

            'preflight COMMAND --help' shows a command's options; 'preflight --version' the versions
            of Preflight and of the SQLite it runs.
            """)

    /// Runs the command line (without the program's name); answers the exit status.
    /// `executable` is this program's path: the workers are this same binary.
    public static func main(_ arguments: [String], executable: String) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            guard let command = parsed.operands.first else { throw UsageError("\(syntax.operandName) is missing") }
            let rest = Array(parsed.operands.dropFirst())
            switch command {
            case "run": return RunCommand.main(rest, workerExecutable: executable)
            case "capacity": return CapacityCommand.main(rest, workerExecutable: executable)
            case "matrix": return MatrixCommand.main(rest, workerExecutable: executable)
            case "serve": return ServeCommand.main(rest, workerExecutable: executable)
            case "synthesize": return SynthesizeCommand.main(rest, workerExecutable: executable)
            case "calibrate": return CalibrateCommand.main(rest, executable: executable)
            case "plan": return PlanCommand.main(rest)
            case "worker": return WorkerCommand.main(rest)
            default: throw UsageError("unknown command \"\(command)\"; the commands are run, capacity, matrix, serve, synthesize, calibrate, plan import")
            }
        }
    }
}
