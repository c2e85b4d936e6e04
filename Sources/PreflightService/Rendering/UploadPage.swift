import Simulation

/// `GET /` (docs/CONTRACT.md §10): a plain HTML form that uploads a database (and its `-wal`) with
/// a registered plan or a plan file, a device, the options and the sweeps. It posts
/// `multipart/form-data` to `/v1/migrations?format=html`: a form cannot set `Accept`, so
/// `format=html` asks for the report page, which the browser then shows. Each option is a
/// part of its own, named as the option; one left empty keeps the device's default.
///
/// Where scripts run, the page shows the work while it runs (`UploadProgressScript`): the
/// same form is posted from a script asking for the progress stream (`ProgressStream`),
/// and the page shows the upload's progress, then each launch and step as it settles,
/// then the report page. Without scripts the form posts as it always did.
enum UploadPage {
    static let action = "/v1/migrations?format=html"

    static func html(plans: [String], devices: [DeviceProfile]) -> String {
        let e = MarkupText.escape
        var planOptions = plans.enumerated().map { index, name in
            "<option value=\"\(e(name))\"\(index == 0 ? " selected" : "")>\(e(name))</option>"
        }
        planOptions.append("<option value=\"\">(none: use the plan file below)</option>")
        let deviceOptions = devices.map { device in
            "<option value=\"\(e(device.name))\"\(device.name == "default" ? " selected" : "") title=\"\(e(device.description))\">"
                + "\(e(device.name)): \(e(summary(of: device)))</option>"
        }
        let body = """
            <h1>Preflight</h1>
            <p>Upload a copy of an app's database to see what its migration does to it on a device: the outcome, \
            the launches the watchdog kills, the space it needs. The file is never changed; the run works on a copy.</p>
            <section id="progress" hidden>
            <h2>Running</h2>
            <p><progress id="upload-bar" max="100" value="0"></progress> <span id="upload-text">uploading</span></p>
            <ol id="lines" class="meta"></ol>
            <p id="problem" class="outcome bad" hidden></p>
            </section>
            <form id="upload" method="post" enctype="multipart/form-data" action="\(e(action))">
            <fieldset><legend>Database</legend>
            <label for="database">database file</label>
            <input type="file" id="database" name="database" required>
            <label for="wal">its -wal file (optional)</label>
            <input type="file" id="wal" name="wal">
            </fieldset>
            <fieldset><legend>Plan</legend>
            <label for="plan">registered plan</label>
            <select id="plan" name="plan">
            \(planOptions.joined(separator: "\n"))
            </select>
            <label for="plan_file">or a plan file (JSON)</label>
            <input type="file" id="plan_file" name="plan_file" accept=".json,application/json">
            </fieldset>
            <fieldset><legend>Device and options</legend>
            <label for="device">device</label>
            <select id="device" name="device">
            \(deviceOptions.joined(separator: "\n"))
            </select>
            <label for="watchdog_ms">watchdog_ms</label>
            <input type="number" id="watchdog_ms" name="watchdog_ms" min="1" placeholder="the device's">
            <label for="free_bytes">free_bytes</label>
            <input type="text" id="free_bytes" name="free_bytes" placeholder="unlimited, or e.g. 50MB">
            <label for="launches">launches</label>
            <input type="number" id="launches" name="launches" min="1" max="100" placeholder="the device's">
            <label for="verify">verify</label>
            <select id="verify" name="verify">
            <option value="" selected>(the default: full)</option>
            <option value="full">full</option>
            <option value="quick">quick</option>
            <option value="off">off</option>
            </select>
            </fieldset>
            <fieldset><legend>Sweeps (after the run; each replays it many times)</legend>
            <label for="kill_sweep">kill_sweep</label>
            <input type="text" id="kill_sweep" name="kill_sweep" placeholder="off, all, or a number of points">
            <p class="meta">The run killed at each durable point (a sync), relaunched, and the end compared with the \
            uninterrupted run's.</p>
            <label for="disk_full_sweep">disk_full_sweep</label>
            <input type="text" id="disk_full_sweep" name="disk_full_sweep" placeholder="off, all, or a number of points">
            <p class="meta">The same, with the disk filling at each point instead of a kill.</p>
            </fieldset>
            <p><button type="submit">Run</button></p>
            </form>
            <p class="meta">The same from a terminal: <code>curl -F database=@app.db -F plan=NAME \
            -F watchdog_ms=5000 'http://HOST:PORT\(e(action))'</code>; without <code>format=html</code> the \
            answer is the JSON report; with <code>-N -H 'Accept: text/event-stream'</code> the progress comes first, \
            as server-sent events.</p>
            <script>\(UploadProgressScript.source)</script>
            """
        return HTMLText.document(title: "Preflight: upload a database", body: body)
    }

    /// What the list shows of a device: its platform (the description's words before its
    /// first colon, when short) and what the rehearsal takes from it, not the profile's
    /// whole description (which stays the option's tooltip).
    static func summary(of device: DeviceProfile) -> String {
        var parts: [String] = []
        if let colon = device.description.firstIndex(of: ":"), device.description.distance(from: device.description.startIndex, to: colon) <= 40 {
            parts.append(String(device.description[..<colon]))
        }
        if let version = device.sqliteVersion { parts.append("SQLite \(version)") }
        if let watchdog = device.watchdogMs {
            parts.append(watchdog % 1000 == 0 ? "\(watchdog / 1000) s watchdog" : "\(watchdog) ms watchdog")
        } else {
            parts.append("no watchdog")
        }
        if let free = device.freeBytes { parts.append("\(ByteCount.text(free)) free") }
        if device.speed != nil { parts.append("device clock") }
        return parts.joined(separator: ", ")
    }
}
