import Foundation
import Simulation
import Testing
import TestSupport

/// The pages of docs/CONTRACT.md §10 in a real browser: the real server, a real job, Debian's
/// chromium loading what the server answers.
@Suite(.serialized, .enabled(if: Chromium.isAvailable, "\(Chromium.unavailable ?? "")"))
struct PageBrowserTests {
    private let fixturesDirectory = TemporaryDirectory("pages")
    var fixtures: String { fixturesDirectory.path }

    /// Screenshots stay in .build/page-screenshots for a person to look at.
    static let screenshots = Chromium.repositoryRoot + "/.build/page-screenshots"

    /// One step per launch (with `PREFLIGHT_TEST_FAULT=after_steps=1`, the worker kills
    /// itself as the second step of a launch starts, as the watchdog would), then a step
    /// that outgrows the free space: kills and a full disk in one run, on any machine.
    /// Step 2's name is markup, which the page must show as text.
    static let killDiskPlan = """
        {"name": "killdisk", "description": "two kills, then a full disk",
         "steps": [
          {"version": 1, "name": "create notes",
           "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER NOT NULL)"},
          {"version": 2, "name": "tags <b>bold</b> & \\"quoted\\"", "sql": "CREATE TABLE tags(id INTEGER PRIMARY KEY, name TEXT)"},
          {"version": 3, "name": "index titles", "sql": "CREATE INDEX idx_notes_title ON notes(title)"},
          {"version": 4, "name": "big table",
           "sql": "CREATE TABLE big AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) SELECT x, randomblob(200) AS b FROM c"}
         ]}
        """

    @Test func reportPageInChromium() throws {
        var plans = Fixtures.plans
        plans["killdisk"] = Self.killDiskPlan
        let server = try ServerProcess(
            environment: ["PREFLIGHT_TEST_FAULT": "after_steps=1", "PREFLIGHT_KEEP_SECONDS": "300"], plans: plans,
            devices: Fixtures.devicesWithSlowPhone)
        let database = try Fixtures.notesDatabase(rows: 20, in: fixtures)
        // A watchdog for the page to draw, on the slow phone's device clock: each launch
        // takes the same device time on any machine, well inside it, so that the kills are
        // the fault's alone.
        let posted = curl(
            server.base + "/v1/migrations?plan=killdisk&keep=1&free_bytes=1000000&space_check=off&watchdog_ms=1500"
                + "&device=\(SlowPhone.name)",
            ["--data-binary", "@" + database])
        let report = try posted.report
        #expect(report.options.clock == .device)
        #expect(report.outcome == .diskFull)
        let kills = report.launches.filter { $0.ended == .killed }.count
        #expect(kills == 2)

        // The browser asks for the kept job as it asks for any page (its own Accept header).
        let url = server.base + "/v1/jobs/\(report.jobID)"
        let dom = try Chromium.dumpDOM(url)
        #expect(dom.contains("<strong>disk_full</strong>"))
        #expect(dom.contains("Needs more than 976.6 KiB free: step v4 \"big table\" filled the disk. Free space first, or make it need less."))
        #expect(occurrences(of: "class=\"launch-bar\"", in: dom) == report.launches.count)
        #expect(occurrences(of: "class=\"kill-marker\"", in: dom) == kills)
        #expect(dom.contains("class=\"watchdog-line\""))
        #expect(dom.contains("class=\"space-path\" d=\"M"))
        #expect(dom.contains("class=\"space-limit\""))
        #expect(occurrences(of: "<tr data-status=", in: dom) == report.steps.count)
        // Every time the browser shows says its clock: the device's for each launch, step and
        // the watchdog, this machine's beside them (and the run's own time).
        let times = PageTimes(dom: dom)
        #expect(times.unlabelled.isEmpty, "times without their clock: \(times.unlabelled)")
        let stepsRun = report.steps.filter { $0.elapsedMs != nil }.count
        #expect(times.count(on: "device") >= 2 * report.launches.count + 2 * stepsRun + 2, "\(times.shown)")
        #expect(times.count(on: "here") >= 2 * report.launches.count + 2 * stepsRun + 1, "\(times.shown)")
        #expect(dom.contains(">watchdog 1.5 s device</text>"))
        // The space chart's axis is the launches' clock: each launch after the first starts
        // at its device time, the launches end to end.
        #expect(dom.contains(">device time, launches end to end</text>"))
        #expect(occurrences(of: "class=\"launch-start\"", in: dom) == report.launches.count - 1)
        // The step's name is text, not markup.
        #expect(dom.contains("tags &lt;b&gt;bold&lt;/b&gt; &amp; \"quoted\""))
        #expect(!dom.contains("<b>bold</b>"))

        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        for (width, height) in [(1280, 900), (390, 844)] {
            let file = Self.screenshots + "/report-\(width)x\(height).png"
            try Chromium.screenshot(url, to: file, width: width, height: height)
            let size = try #require(Chromium.pngSize(file))
            #expect(size.width == width && size.height == height)
        }

        // Overflow at 390 px: headless chromium will not make a window narrower than 500 px
        // for --dump-dom, so the page goes into an iframe exactly 390 px wide (srcdoc: same
        // origin as its parent, so the parent's script may measure it) and the parent writes
        // the frame's scrollWidth and clientWidth into the DOM that --dump-dom prints. The
        // page itself has no script; the same probe around a page with a 600 px box proves
        // the probe sees an overflow when there is one.
        let page = curl(url, ["-H", "Accept: text/html"]).text
        let narrow = try frameWidths(of: page, name: "page")
        #expect(narrow.scroll <= narrow.client, "the page is \(narrow.scroll) px wide in a \(narrow.client) px window")
        #expect(narrow.client > 300)
        let wide = try frameWidths(
            of: page.replacingOccurrences(of: "</body>", with: "<div style=\"width:600px\">wide</div></body>"), name: "wide")
        #expect(wide.scroll > wide.client)
    }

    @Test func uploadPageAndItsForm() throws {
        var devices = Fixtures.devices
        // As long as the catalog's own descriptions, which must not widen the page.
        devices["described"] = #"{"name": "described", "description": "\#(String(repeating: "a long description ", count: 12))"}"#
        let server = try ServerProcess(devices: devices)
        let dom = try Chromium.dumpDOM(server.base + "/")
        #expect(dom.contains("action=\"/v1/migrations?format=html\""))
        #expect(dom.contains("enctype=\"multipart/form-data\""))
        for field in ["database", "wal", "plan", "plan_file", "device", "watchdog_ms", "free_bytes", "launches", "verify"] {
            #expect(dom.contains("name=\"\(field)\""), "field \(field)")
        }
        for plan in Fixtures.plans.keys { #expect(dom.contains("<option value=\"\(plan)\""), "plan \(plan)") }
        #expect(dom.contains("<option value=\"phone\" title=\"a test phone\">phone: 20 s watchdog</option>"))
        // A long description stays out of the list (the option's tooltip has it).
        #expect(dom.contains(">described: no watchdog</option>"))
        for field in ["kill_sweep", "disk_full_sweep"] { #expect(dom.contains("name=\"\(field)\""), "field \(field)") }
        // The page fits a phone too, with the catalog's long device descriptions in its list.
        let upload = try frameWidths(of: server.get("/").text, name: "upload")
        #expect(upload.scroll <= upload.client, "the upload page is \(upload.scroll) px wide in \(upload.client) px")

        // What the browser posts: every field, the ones left blank empty, the unchosen
        // file inputs as empty parts with an empty file name.
        let database = try Fixtures.notesDatabase(rows: 30, in: fixtures)
        let empty = fixtures + "/empty"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let form = [
            "-F", "database=@\(database)", "-F", "wal=@\(empty);filename=", "-F", "plan=notes",
            "-F", "plan_file=@\(empty);filename=", "-F", "device=phone", "-F", "watchdog_ms=",
            "-F", "free_bytes=", "-F", "launches=2", "-F", "verify=quick",
        ]
        let page = curl(server.base + "/v1/migrations?format=html", form)
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.text.contains("<strong>completed</strong>"))
        #expect(page.text.contains("device phone"))
        // Without format=html the same form answers the JSON report, with the fields applied.
        let report = try curl(server.base + "/v1/migrations", form).report
        #expect(report.outcome == .completed)
        #expect(report.options.device == "phone" && report.options.launches == 2 && report.options.verify == .quick)
        #expect(report.options.watchdogMs == 20000)

        // A plan file instead of a registered plan.
        let planFile = fixtures + "/plan.json"
        try Fixtures.notesPlan(name: "from-file").write(toFile: planFile, atomically: true, encoding: .utf8)
        let fromFile = curl(
            server.base + "/v1/migrations?format=html",
            ["-F", "database=@\(database)", "-F", "plan=", "-F", "plan_file=@\(planFile)"])
        #expect(fromFile.text.contains("Preflight: from-file to v3"))
        let both = curl(
            server.base + "/v1/migrations?format=html",
            ["-F", "database=@\(database)", "-F", "plan=notes", "-F", "plan_file=@\(planFile)"])
        #expect(both.status == 400)
        #expect(both.text.contains("give one plan"))
        #expect(curl(server.base + "/v1/migrations?format=pdf", form).status == 400)
    }

    /// The upload page shows the work while it runs. A job held at step 3 (`HeldJob`) has
    /// taken the upload and settled step 2: the page, which posts its form from its script,
    /// shows those progress lines while the job is held, before any report can exist;
    /// released, the job ends and the page becomes the report. The browser tells the
    /// test's listener (`BrowserSink`) what the page shows: a harness page of the test's
    /// drives the server's own page in a frame, in a chromium with web security off so
    /// that the harness may post there.
    @Test func theUploadPageShowsTheWorkWhileItRuns() throws {
        let server = try ServerProcess(environment: HeldJob.environment(atStep: 3))
        let sink = try BrowserSink()
        let database = try Fixtures.notesDatabase(rows: 20, in: fixtures)
        let harness = fixtures + "/harness.html"
        try Self.harness(server: server.base, sink: sink.base, database: try Data(contentsOf: URL(fileURLWithPath: database)))
            .write(toFile: harness, atomically: true, encoding: .utf8)
        let browser = try Chromium.Session("file://" + harness, flags: ["--disable-web-security"])
        let held = try #require(HeldJob.await(under: server.jobDir), "the page's upload never reached step 3; console: \(browser.console)")
        let running = try #require(sink.await("progress"), "the page showed no progress while its job was held; console: \(browser.console)")
        #expect(running.contains("launch 1: step 2 \"sync status\" applied in"), "\(running)")
        #expect(running.contains("<li>upload received: "))
        #expect(!running.contains("<strong>completed</strong>"))
        try held.release()
        let report = try #require(sink.await("report"), "the page never became the report; console: \(browser.console)")
        #expect(report.contains("<strong>completed</strong>"))
        #expect(report.contains("Preflight: notes to v3"))
        withExtendedLifetime(browser) {}

        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        for (name, page) in [("upload-running", running), ("upload-report", report)] {
            let file = fixtures + "/\(name).html"
            try page.write(toFile: file, atomically: true, encoding: .utf8)
            try Chromium.screenshot("file://" + file, to: Self.screenshots + "/\(name).png", width: 1000, height: 1100)
        }
    }

    /// The harness: it loads the server's upload page into a frame (with a base that points
    /// its form at the server), picks the database and the plan as a person would, submits,
    /// and posts the page's HTML to the sink twice: once it shows two progress lines (the
    /// upload and step 2), and once it has become the report.
    static func harness(server: String, sink: String, database: Data) -> String {
        """
        <!DOCTYPE html><html><body><iframe id="page" width="1000" height="1100"></iframe><script>
        function tell(name, text) { var r = new XMLHttpRequest(); r.open("POST", "\(sink)/" + name); r.send(text); }
        var bytes = Uint8Array.from(atob("\(database.base64EncodedString())"), function (c) { return c.charCodeAt(0); });
        var get = new XMLHttpRequest();
        get.open("GET", "\(server)/");
        get.onload = function () {
          var frame = document.getElementById("page");
          frame.onload = function () {
            frame.onload = null;
            var page = frame.contentDocument;
            var files = new DataTransfer();
            files.items.add(new File([bytes], "notes-v1.db"));
            page.getElementById("database").files = files.files;
            page.getElementById("plan").value = "notes";
            var running = false;
            var watch = setInterval(function () {
              var now = frame.contentDocument;
              if (!running && now.querySelectorAll("#lines li").length >= 2) {
                running = true;
                tell("progress", now.documentElement.outerHTML);
              }
              if (now.querySelector(".outcome strong")) {
                clearInterval(watch);
                tell("report", now.documentElement.outerHTML);
              }
            }, 50);
            page.getElementById("upload").requestSubmit();
          };
          frame.srcdoc = get.responseText.replace("<head>", '<head><base href="\(server)/">');
        };
        get.send();
        </script></body></html>
        """
    }

    private func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// The page in a 390 x 844 iframe: its document's scrollWidth and clientWidth.
    private func frameWidths(of page: String, name: String) throws -> (scroll: Int, client: Int) {
        let wrapper = """
            <!DOCTYPE html><html><body><iframe id="frame" width="390" height="844" srcdoc="\(escapeAttribute(page))"></iframe>
            <script>window.addEventListener("load", function () {
              var d = document.getElementById("frame").contentDocument.documentElement;
              document.body.setAttribute("data-widths", d.scrollWidth + " " + d.clientWidth);
            });</script></body></html>
            """
        let file = fixtures + "/\(name)-probe.html"
        try wrapper.write(toFile: file, atomically: true, encoding: .utf8)
        let dom = try Chromium.dumpDOM("file://" + file)
        guard let start = dom.range(of: "data-widths=\"")?.upperBound,
            let end = dom[start...].firstIndex(of: "\"")
        else { throw HarnessError("the probe wrote no widths: \(dom.prefix(300))") }
        let numbers = dom[start..<end].split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 2 else { throw HarnessError("the probe wrote \(dom[start..<end])") }
        return (numbers[0], numbers[1])
    }

    private func escapeAttribute(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
