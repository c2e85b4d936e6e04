import Foundation

/// Polls `condition` every 20 ms until it holds, and answers whether it did, so that a
/// test's `#expect` fails instead of hanging. `seconds` only bounds a wait for something
/// that never comes: no test depends on how soon it comes, and a loaded machine only
/// takes longer to pass.
public func eventually(within seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return try condition()
}
