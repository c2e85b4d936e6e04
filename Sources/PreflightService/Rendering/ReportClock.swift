import Foundation
import Simulation

/// The two clocks a report's times are on, and how the pages say which: under `clock:
/// device` the launches, steps and watchdog are the device's modelled time ("20.0 s
/// device"), the clock the watchdog counted; what this machine measured comes second,
/// marked "here" ("4.1 s here"). Under `clock: wall` every time is this machine's, and
/// the watchdog killed at `watchdog_ms / time_scale` of it. Every time a page shows goes
/// through `device(ms:)` or `here(ms:)`, so that none stands without its clock.
struct ReportClock {
    let options: RunOptions

    init(_ options: RunOptions) { self.options = options }

    var onDevice: Bool { options.clock == .device }

    static let deviceLabel = "device"
    static let hereLabel = "here"

    static func device(ms: Int) -> String { "\(ReportRendering.duration(ms: ms)) \(deviceLabel)" }
    static func here(ms: Int) -> String { "\(ReportRendering.duration(ms: ms)) \(hereLabel)" }

    /// A time on the clock the launches use, labelled with it.
    func launches(ms: Int) -> String { onDevice ? Self.device(ms: ms) : Self.here(ms: ms) }

    /// The device's time first, then this machine's, marked: "20.0 s device (4.1 s here)";
    /// this machine's alone where the device's is not known.
    static func both(deviceMs: Int?, hereMs: Int?) -> String? {
        switch (deviceMs, hereMs) {
        case (let onDevice?, let onMachine?): return "\(device(ms: onDevice)) (\(here(ms: onMachine)))"
        case (let onDevice?, nil): return device(ms: onDevice)
        case (nil, let onMachine?): return here(ms: onMachine)
        case (nil, nil): return nil
        }
    }

    /// What the page says of its clocks, once, before the charts.
    var legend: String {
        if onDevice {
            return "Times marked device are the phone's, modelled from the work each launch did: the watchdog counts "
                + "them. Times marked here are what this machine took for the same work."
        }
        let scale = options.timeScale == 1 ? "" : " (the watchdog's time divided by the profile's time_scale, \(options.timeScale))"
        return "Times marked here are this machine's, the clock the watchdog counted\(scale)."
    }

    // MARK: - The launches' clock

    /// The watchdog's deadline on the launches' clock.
    var deadline: Double? {
        options.watchdogMs.map { Double($0) / (onDevice ? 1 : max(options.timeScale, 0.000_001)) }
    }

    func length(of launch: LaunchReport) -> Double {
        Double(onDevice ? launch.deviceMs ?? launch.elapsedMs : launch.elapsedMs)
    }

    /// Process start until the database was open.
    func start(of launch: LaunchReport) -> Double {
        onDevice ? options.speed?.startMs ?? 0 : Double(launch.startMs ?? 0)
    }

    func length(of step: StepReport) -> Double? {
        (onDevice ? step.deviceMs : step.elapsedMs).map(Double.init)
    }

    // MARK: - The samples on the launches' clock

    /// `space.samples`' times (this machine's, from the first launch's start) on the
    /// launches' clock: under `clock: device`, each launch's samples placed on its device
    /// time, the launches end to end (the time between them, when this machine read the
    /// file's state, is no time on the phone); within a launch, its start and its steps
    /// map piece by piece, as the timeline lays them. Nil when the report does not say
    /// where each launch lies among the samples (`at_ms`): then they stay this machine's.
    func sampleTimes(_ report: Report) -> ((Int64) -> Double)? {
        guard onDevice else { return { Double($0) } }
        var pieces: [(machine: [Double], device: [Double])] = []
        var deviceSoFar = 0.0
        for launch in report.launches {
            guard let at = launch.atMs, let deviceMs = launch.deviceMs else { return nil }
            let (machineEnd, deviceEnd) = (Double(at + launch.elapsedMs), deviceSoFar + Double(deviceMs))
            var machine = [Double(at), min(machineEnd, Double(at + (launch.startMs ?? 0)))]
            var device = [deviceSoFar, min(deviceEnd, deviceSoFar + start(of: launch))]
            for step in report.steps where step.launch == launch.launch {
                guard let here = step.elapsedMs, let there = step.deviceMs else { continue }
                machine.append(min(machineEnd, machine[machine.count - 1] + Double(here)))
                device.append(min(deviceEnd, device[device.count - 1] + Double(there)))
            }
            machine.append(machineEnd)
            device.append(deviceEnd)
            pieces.append((machine, device))
            deviceSoFar = deviceEnd
        }
        return { t in
            let time = Double(t)
            // The last launch that had started by then; before the first, its start.
            guard let piece = pieces.last(where: { $0.machine[0] <= time }) ?? pieces.first else { return 0 }
            for index in 1..<piece.machine.count where time <= piece.machine[index] {
                let (from, to) = (piece.machine[index - 1], piece.machine[index])
                let share = to > from ? max(0, time - from) / (to - from) : 1
                return piece.device[index - 1] + share * (piece.device[index] - piece.device[index - 1])
            }
            return piece.device[piece.device.count - 1]
        }
    }
}
