// TEMPORARY compile placeholder until branch synth is merged; never committed.
enum SynthesisTask {
    static func main(_ task: Worker.Task, directory: JobDirectory) throws {
        EventWriter.write(SynthesisLine(errorCode: "unavailable", errorMessage: "synthesis not merged yet"))
    }
}
