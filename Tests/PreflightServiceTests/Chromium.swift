import Foundation
import TestSupport

/// Debian's `chromium`, headless, as the page tests drive it: `--dump-dom` for the DOM
/// after the page loaded, `--screenshot` for what a person sees.
enum Chromium {
    static let executable = "/usr/bin/chromium"

    /// Whether chromium can run here: when it is missing, scripts/bootstrap (whose package
    /// list names it) installs it first; nil means it is there, else why it is not.
    static let unavailable: String? = {
        if FileManager.default.isExecutableFile(atPath: executable) { return nil }
        let bootstrap = repositoryRoot + "/scripts/bootstrap"
        let installed = run("/bin/bash", [bootstrap])
        if FileManager.default.isExecutableFile(atPath: executable) { return nil }
        return "chromium is not installed and scripts/bootstrap could not install it (exit \(installed.status))"
    }()

    static var isAvailable: Bool { unavailable == nil }

    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// The DOM of `url` once it loaded (scripts run, as in any browser), serialized.
    static func dumpDOM(_ url: String, width: Int = 1280, height: Int = 900) throws -> String {
        let result = try launch(["--window-size=\(width),\(height)", "--dump-dom", url])
        guard result.status == 0, !result.output.isEmpty else {
            throw HarnessError("chromium --dump-dom \(url) failed (exit \(result.status))")
        }
        return result.output
    }

    /// A PNG of `url` in a window of `width` x `height`.
    static func screenshot(_ url: String, to file: String, width: Int, height: Int) throws {
        try? FileManager.default.removeItem(atPath: file)
        let result = try launch(["--window-size=\(width),\(height)", "--screenshot=\(file)", url])
        guard result.status == 0, FileManager.default.fileExists(atPath: file) else {
            throw HarnessError("chromium --screenshot of \(url) failed (exit \(result.status))")
        }
    }

    /// A browser left open on a page, for a page that works on while the test acts (one
    /// with a running job): headless chromium stays open while remote debugging is on.
    /// Closed (SIGTERM) when the value goes away.
    final class Session {
        private let profile = TemporaryDirectory("chromium-profile")
        private let browser: TestProcess

        /// Opens `url` with chromium's `flags` besides the usual ones.
        init(_ url: String, flags: [String] = []) throws {
            browser = try TestProcess(
                executable,
                ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)",
                 "--remote-debugging-port=0", "--enable-logging=stderr"] + flags + [url])
        }

        /// What the page's scripts wrote to the console, for a test's failure message.
        var console: String {
            browser.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.joined(separator: "\n")
        }

        deinit { browser.stop() }
    }

    /// Width and height from a PNG's IHDR chunk; nil when the file is not a PNG.
    static func pngSize(_ file: String) -> (width: Int, height: Int)? {
        guard let data = FileManager.default.contents(atPath: file), data.count > 24,
            data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        else { return nil }
        func integer(_ offset: Int) -> Int { data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (integer(16), integer(20))
    }

    /// Each run has a profile directory of its own, so that runs in parallel do not share one.
    private static func launch(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let profile = try makeTemporaryDirectory("chromium-profile")
        defer { try? FileManager.default.removeItem(atPath: profile) }
        // timeout(1) bounds a chromium that hangs, so that the test fails instead.
        return run(
            "/usr/bin/timeout",
            ["120", executable, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile)"] + arguments)
    }
}
