import Glibc

/// How a worker started ahead of its turn is held until its go (`ChildProcess.go`,
/// `preflight worker ... --await-start`). Its standard input is a socket to its parent:
/// once loaded and confined, the worker sends the instant it became ready, then waits to
/// read one byte, the go. The parent subtracts the wait between the two from the
/// worker's clock, so that a launch's time (its watchdog, its `start_ms`) still counts
/// the process's own start, as a phone's does, and nothing of the wait.
enum StartSignal {
    /// CLOCK_MONOTONIC in nanoseconds: one clock for every process on the machine.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The worker's side: tells its parent it is ready and waits for the go. False when
    /// the parent closed its end instead: the job no longer needs this worker.
    static func awaitGo() -> Bool {
        var ready = now()
        // It fails when the parent gave the go before this was ready and closed its end:
        // then the go waits to be read all the same, and the parent kept the clock from the spawn.
        _ = send(0, &ready, MemoryLayout<UInt64>.size, Int32(MSG_NOSIGNAL))
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            return count == 1
        }
    }
}
