// preflight: parses the subcommand and hands over to the layer that does the work.
import Foundation
import PreflightService
import Simulation

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: preflight run --db FILE --plan PLAN.json [options]   rehearse a migration, print the report
           preflight serve [--config FILE]                      start the HTTP service
    """

/// Workers are this same binary; /proc/self/exe names it even when started through $PATH.
let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]

switch arguments.first {
case "run":
    exit(RunCommand.main(Array(arguments.dropFirst()), workerExecutable: executable))
case "serve":
    let rest = Array(arguments.dropFirst())
    var configPath: String?
    if let index = rest.firstIndex(of: "--config"), index + 1 < rest.count { configPath = rest[index + 1] }
    exit(Server.serve(configPath: configPath, workerExecutable: executable))
case "worker":
    exit(Worker.main(Array(arguments.dropFirst())))
case "--help", "-h", "help":
    print(usage)
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
