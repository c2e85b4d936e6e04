// preflight: hands the command line to PreflightCommand, which reads it with the one
// parser every command uses and wires the layers.
import Foundation
import PreflightService

/// Workers are this same binary; /proc/self/exe names it even when started through $PATH
/// (without /proc, the name it was started by is the best there is).
let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
exit(PreflightCommand.main(Array(CommandLine.arguments.dropFirst()), executable: executable))
