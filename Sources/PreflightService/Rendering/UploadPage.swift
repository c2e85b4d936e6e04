/// `GET /` (docs/CONTRACT.md §10): a plain HTML form that uploads a database (and its `-wal`) with
/// a registered plan or a plan file, a device and the options. It posts
/// `multipart/form-data` to `/v1/migrations?format=html`: a form cannot set `Accept`, so
/// `format=html` asks for the report page, which the browser then shows. Each option is a
/// part of its own, named as the option; one left empty keeps the device's default.
enum UploadPage {
    static let action = "/v1/migrations?format=html"

    static func html(plans: [String], devices: [(name: String, description: String)]) -> String {
        let e = MarkupText.escape
        var planOptions = plans.enumerated().map { index, name in
            "<option value=\"\(e(name))\"\(index == 0 ? " selected" : "")>\(e(name))</option>"
        }
        planOptions.append("<option value=\"\">(none: use the plan file below)</option>")
        let deviceOptions = devices.map { device in
            "<option value=\"\(e(device.name))\"\(device.name == "default" ? " selected" : "")>"
                + "\(e(device.name)): \(e(device.description))</option>"
        }
        let body = """
            <h1>Preflight</h1>
            <p>Upload a copy of an app's database to see what its migration does to it on a device: the outcome, \
            the launches the watchdog kills, the space it needs. The file is never changed; the run works on a copy.</p>
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
            <p><button type="submit">Run</button></p>
            </form>
            <p class="meta">The same from a terminal: <code>curl -F database=@app.db -F plan=NAME \
            -F watchdog_ms=5000 'http://HOST:PORT\(e(action))'</code>; without <code>format=html</code> the \
            answer is the JSON report.</p>
            """
        return HTMLText.document(title: "Preflight: upload a database", body: body)
    }
}
