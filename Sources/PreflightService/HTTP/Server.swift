import Dispatch
import Foundation
import MigrationCore
import Simulation

/// `preflight serve`: the HTTP service of docs/CONTRACT.md §5, configured as §6 says.
public enum Server {
    /// Starts the service and runs it until SIGTERM or SIGINT; answers the exit code
    /// (0 after a graceful stop, 2 for a configuration that cannot start).
    ///
    /// Prints `listening on http://BIND:PORT` on stdout once connections are accepted
    /// (with `port` 0, the port picked), the one line scripts wait for; the log on stderr
    /// (`RequestLog`, JSON lines) says the same. After SIGTERM it stops accepting, lets
    /// running jobs finish within `shutdown_grace_s`, cancels the rest (their workers are
    /// killed, their directories removed), and returns 0.
    public static func serve(configPath: String?, workerExecutable: String) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let service: Service
        var relay: StderrRelay?
        do {
            let configuration = try ServiceConfiguration.load(path: configPath)
            try prepareJobDirectory(configuration.jobDir)
            relay = StderrRelay(level: configuration.logLevel)
            service = try Service(
                configuration: configuration, runner: JobRunner(workerExecutable: workerExecutable),
                log: relay?.log ?? RequestLog(level: configuration.logLevel))
        } catch {
            relay?.finish()
            RequestLog().write(.error, "preflight serve: \(error)")
            return 2
        }
        // Signals arrive as events on a queue, never in a signal handler.
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let stopRequested = DispatchSemaphore(value: 0)
        let signalQueue = DispatchQueue(label: "preflight.signals")
        let sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
            source.setEventHandler { stopRequested.signal() }
            source.resume()
            return source
        }
        let daemon = Daemon(service: service)
        let port: UInt16
        let probePort: UInt16
        do {
            (port, probePort) = try daemon.start()
        } catch {
            service.log.write(.error, "preflight serve: \(error)")
            return 2
        }
        let sweeper = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "preflight.kept-jobs"))
        sweeper.schedule(deadline: .now() + 1, repeating: 1)
        sweeper.setEventHandler { service.kept.sweep() }
        sweeper.resume()

        if case .none(let reason) = WorkerSandbox.fileSandbox {
            FileHandle.standardError.write(Data("preflight serve: workers run without a file sandbox: \(reason)\n".utf8))
        }
        let bind = service.configuration.bind
        let host = bind.contains(":") ? "[\(bind)]" : bind
        let listening = "listening on http://\(host):\(port)"
        // Before the line scripts wait for, so that it is there once that one is.
        print("probes (/healthz, /metrics) on http://\(host):\(probePort)")
        print(listening)
        fflush(nil)
        service.log.write(.info, listening, [
            ("bind", .string(bind)), ("port", .number(Double(port))), ("probe_port", .number(Double(probePort))),
            ("log_level", .string(service.configuration.logLevel.rawValue)),
        ])

        stopRequested.wait()
        shutDown(service, daemon: daemon)
        sweeper.cancel()
        for source in sources { source.cancel() }
        relay?.finish()
        service.log.write(.info, "stopped")
        return 0
    }

    /// Stop accepting; let jobs run for the grace period; cancel what is left; close.
    static func shutDown(_ service: Service, daemon: Daemon) {
        let grace = service.configuration.shutdownGraceS
        let running = service.lifecycle.runningJobs
        service.log.write(.info, "stopping: \(running) job(s) running, grace \(grace) s", [
            ("running_jobs", .number(Double(running))), ("grace_s", .number(Double(grace))),
        ])
        service.lifecycle.beginDraining()
        daemon.quiesce()
        let deadline = ContinuousClock.now + .seconds(grace)
        while service.lifecycle.inFlight > 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        if service.lifecycle.inFlight > 0 {
            service.log.write(.info, "grace period over: cancelling \(service.lifecycle.runningJobs) job(s)")
            service.lifecycle.cancelAll()
            // Cancelled workers die at once; give their handlers time to answer and clean up.
            let cleanup = ContinuousClock.now + .seconds(10)
            while service.lifecycle.runningJobs > 0, ContinuousClock.now < cleanup {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        daemon.stop()
        service.kept.removeAll()
    }

    /// Makes `job_dir` (mode 0700) if it is not there; a path that cannot be one stops the start.
    static func prepareJobDirectory(_ path: String) throws(ConfigurationError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConfigurationError(key: "job_dir", message: "cannot create \(path): \(error.localizedDescription)")
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw ConfigurationError(key: "job_dir", message: "\(path) is not writable")
        }
    }
}
