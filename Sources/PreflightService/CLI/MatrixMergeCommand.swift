import Foundation
import Simulation

/// `preflight matrix merge FILE...`: joins shards' partial answers (`preflight matrix
/// --shard I/N`) into the answer of the whole matrix (`MatrixMerge`).
enum MatrixMergeCommand {
    static let syntax = CommandSyntax(
        command: "preflight matrix merge",
        flags: [.init("format", value: "FORMAT"), .init("out", value: "FILE")],
        operands: 1...Int.max, operandName: "the shards' answers (FILE...)",
        usage: """
            usage: preflight matrix merge FILE... [--format json|text|junit|html] [--out FILE]

            Joins the partial answers of 'preflight matrix --shard I/N' (JSON, one per shard) into
            the answer the unsharded matrix gives. Fails, naming the shard, when one is missing or
            given twice, or comes from another plan, other inputs or other options.

            exit status: 0 every cell completed, 1 a cell did not or the shards cannot be merged,
            2 bad usage
            """)

    static func main(_ arguments: [String]) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            let output = try MatrixOutput(parsed)
            var shards: [MatrixAnswer] = []
            for path in parsed.operands {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw UsageError("cannot read the shard answer \(path)", suggestsHelp: false)
                }
                do {
                    shards.append(try JSONDecoder().decode(MatrixAnswer.self, from: data))
                } catch {
                    throw UsageError("\(path) is not a matrix answer (matrix_version 1 JSON): \(error)", suggestsHelp: false)
                }
            }
            do throws(MatrixMergeError) {
                return output.write(try MatrixMerge.merge(shards), plan: nil)
            } catch {
                printError("preflight matrix merge: \(error.message)")
                return 1
            }
        }
    }
}
