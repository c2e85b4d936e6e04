import Simulation

/// `preflight worker TASK --job DIR --parent PID [--launch N] [--final-only]
/// [--kill-before-sync N | --full-at-write N | --kill-at-main-write N] [--input FILE] [--await-start]`: one worker
/// process of a job (`Worker`). `run` and `serve` start it; people do not.
enum WorkerCommand {
    static let syntax = CommandSyntax(
        command: "preflight worker",
        flags: [
            .init("job", value: "DIR"), .init("parent", value: "PID"), .init("launch", value: "N"),
            .init("final-only", value: nil), .init(StorageFault.killFlag, value: "N"), .init(StorageFault.fullFlag, value: "N"),
            .init(StorageFault.mainWriteFlag, value: "N"), .init("input", value: "FILE"), .init("await-start", value: nil),
            .init(StorageFault.recordFlag, value: nil),
        ],
        operands: 1...1, operandName: "a task (\(Worker.Task.allCases.map(\.rawValue).joined(separator: ", ")))",
        usage: """
            usage: preflight worker \(Worker.Task.allCases.map(\.rawValue).joined(separator: "|")) --job DIR --parent PID [--launch N] [--final-only]
                   [--kill-before-sync N | --full-at-write N | --kill-at-main-write N | --record-operations]
                   [--input FILE] [--await-start]

            Internal: one process of a rehearsal, started by 'preflight run' and 'preflight serve'
            in a job directory they made. It opens the job's database with SQLite, so that the
            process that started it never does.
            """)

    static func main(_ arguments: [String]) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            let taskName = parsed.operands[0]
            guard let task = Worker.Task(rawValue: taskName) else {
                throw UsageError(
                    "unknown task \"\(taskName)\"; tasks are \(Worker.Task.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard let job = parsed.value("job") else { throw UsageError("--job DIR is required") }
            guard let parentText = parsed.value("parent") else { throw UsageError("--parent PID is required") }
            guard let parent = Int32(parentText), parent > 0 else {
                throw UsageError("--parent must be a process id, got \"\(parentText)\"")
            }
            var launch = 1
            if let text = parsed.value("launch") {
                guard let number = Int(text), number >= 1 else {
                    throw UsageError("--launch must be a whole number from 1, got \"\(text)\"")
                }
                launch = number
            }
            var fault: StorageFault?
            let faults: [(flag: String, make: (Int) -> StorageFault)] = [
                (StorageFault.killFlag, StorageFault.killBeforeSync), (StorageFault.fullFlag, StorageFault.fullAtWrite),
                (StorageFault.mainWriteFlag, StorageFault.killAtMainWrite),
            ]
            for (flag, make) in faults {
                guard let text = parsed.value(flag) else { continue }
                guard fault == nil else {
                    throw UsageError("\(faults.map { "--" + $0.flag }.joined(separator: ", ")) exclude each other")
                }
                guard let point = Int(text), point >= 1 else {
                    throw UsageError("--\(flag) must be a whole number from 1, got \"\(text)\"")
                }
                fault = make(point)
            }
            if parsed.isSet(StorageFault.recordFlag) {
                guard fault == nil else { throw UsageError("--\(StorageFault.recordFlag) excludes the faults") }
                fault = .recordOperations
            }
            return Worker.main(Worker.Invocation(
                task: task, jobDirectory: job, parentPID: parent, launch: launch, finalOnly: parsed.isSet("final-only"),
                fault: fault, input: parsed.value("input"), awaitsStart: parsed.isSet("await-start")))
        }
    }
}
