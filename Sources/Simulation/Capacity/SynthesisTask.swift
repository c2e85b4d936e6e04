import Foundation
import MigrationCore

/// The `sample` and `synthesize` workers of a capacity search: they read the untrusted
/// sample and replay the untrusted plan's SQL inside the worker sandbox (confined to the
/// search directory, with its resource limits and the search's deadline), never in the
/// process that asked. Each prints one `SynthesisLine`.
enum SynthesisTask {
    static func main(_ task: Worker.Task, directory: JobDirectory) throws {
        let order = try JSONDecoder().decode(
            SynthesisOrder.self, from: Data(contentsOf: URL(fileURLWithPath: SynthesisOrder.path(in: directory))))
        let plan = try PlanDecoder.decode(Array(order.plan.utf8))
        do throws(SynthesisError) {
            let like = try order.sample.map { path throws(SynthesisError) in try SampleShape.measure(path: path) }
            if task == .sample {
                EventWriter.write(SynthesisLine(userVersion: like?.userVersion, tableRows: like?.tableRows))
                return
            }
            if FaultInjection.inEnvironment?.holdsSynthesis == true {
                StepHold.hold(in: directory.path)
            }
            let request = SynthesisRequest(plan: plan, version: order.version, rows: order.rows, like: like, seed: order.seed)
            let summary: SynthesisSummary
            if let rows = order.grownFrom, let grown = try Synthesizer.grow(request, from: rows, at: order.out) {
                summary = grown
            } else {
                summary = try Synthesizer.synthesize(request, to: order.out)
            }
            EventWriter.write(SynthesisLine(tables: summary.tables, bytes: summary.bytes, journalMode: summary.journalMode))
        } catch {
            EventWriter.write(SynthesisLine(errorCode: error.code, errorMessage: error.message))
        }
    }
}
