// preflight-bench: benchmark programs that print ratios measured side by side in one
// run, never absolute thresholds. Build with -c release:
//
//     swift run -c release preflight-bench rebuild   # chunked rebuild vs the sqlite3 CLI
//     swift run -c release preflight-bench space     # a rebuild with and without the space VFS
//     swift run -c release preflight-bench upload    # upload throughput, memory, /healthz
//     swift run -c release preflight-bench run       # preflight run vs cp + the sqlite3 CLI
//     swift run -c release preflight-bench synthesize  # preflight synthesize vs a sqlite3 CTE insert
//     swift run -c release preflight-bench clock     # the device clock's modelled time vs the measured
//     swift run -c release preflight-bench capacity  # preflight capacity vs one preflight run at its boundary
//     swift run -c release preflight-bench connections  # /healthz and a migration under 10,000 idle connections
//     swift run -c release preflight-bench decode    # plan decoding time against the plan's length
//     swift run -c release preflight-bench matrix    # preflight matrix vs its cells one at a time / cores
import Foundation

let benchmarks: [String: ([String]) throws -> Void] = [
    "capacity": runCapacityBenchmark,
    "clock": runClockBenchmark,
    "connections": runConnectionsBenchmark,
    "decode": runDecodeBenchmark,
    "matrix": runMatrixBenchmark,
    "rebuild": runRebuildBenchmark,
    "run": runRunBenchmark,
    "space": runSpaceBenchmark,
    "synthesize": runSynthesizeBenchmark,
    "upload": runUploadBenchmark,
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let benchmark = benchmarks[name] else {
    FileHandle.standardError.write(Data("usage: preflight-bench \(benchmarks.keys.sorted().joined(separator: "|")) [options]\n".utf8))
    exit(2)
}
do {
    try benchmark(Array(arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("preflight-bench \(name): \(error)\n".utf8))
    exit(1)
}
