import Foundation
import Simulation
import MigrationCore

/// The read-only endpoints: health, metrics, the API document, the catalogs and kept jobs.
extension Service {
    func health() -> HTTPResponse {
        let load = scheduler.load
        let draining = lifecycle.isDraining
        let document = JSONValue.object([
            "status": .string(draining ? "draining" : "ok"),
            "jobs": .object([
                "running": .number(Double(load.running)), "queued": .number(Double(load.queued)),
                "uploading": .number(Double(load.uploading)), "kept": .number(Double(kept.count)),
            ]),
            // What confines the workers' file access: "landlock" or "none".
            "sandbox": .string(WorkerSandbox.fileSandbox.name),
        ])
        return .json(Array((document.canonicalText + "\n").utf8), status: draining ? 503 : 200)
    }

    func metricsText() -> HTTPResponse {
        HTTPResponse(
            status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
            body: .bytes(Array(metrics.render(load: scheduler.load).utf8)))
    }

    /// Resources/openapi.json, byte for byte. OpenAPITests keeps it true: openapi-core
    /// validates a real request and answer of every kind against it, and the report
    /// schema's required fields are exactly the report's top-level fields.
    func openAPIDocument() -> HTTPResponse {
        .json(PackageResources.openapi_json)
    }

    func planList() -> HTTPResponse {
        let items = plans.names.compactMap { name -> JSONValue? in
            guard let plan = plans.plan(named: name) else { return nil }
            return .object([
                "name": .string(name), "description": plan.description.map(JSONValue.string) ?? .null,
                "newest_version": .number(Double(plan.newestVersion)), "steps": .number(Double(plan.steps.count)),
                "sha256": .string(plan.sha256),
            ])
        }
        return .json(Array((JSONValue.object(["plans": .array(items)]).canonicalText + "\n").utf8))
    }

    /// The document as its file holds it, byte for byte.
    func planDocument(_ name: String) -> HTTPResponse {
        guard let plan = plans.plan(named: name) else { return .error(.unknownPlan(name, known: plans.names)) }
        return .json(plan.document)
    }

    func deviceList() -> HTTPResponse {
        func number<Value: BinaryInteger>(_ value: Value?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        func flag(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let items = devices.sorted.map { device -> JSONValue in
            let settings = device.connection
            let connection: [String: JSONValue] = [
                "secure_delete": flag(settings.secureDelete), "journal_mode": text(settings.journalMode),
                "synchronous": text(settings.synchronous), "legacy_alter_table": flag(settings.legacyAlterTable),
                "temp_store": text(settings.tempStore), "journal_size_limit": number(settings.journalSizeLimit),
                "wal_autocheckpoint": number(settings.walAutocheckpoint), "foreign_keys": flag(settings.foreignKeys),
                "android_functions": flag(settings.androidFunctions), "locale": text(settings.locale),
            ]
            return .object([
                "name": .string(device.name), "description": .string(device.description),
                "sqlite_version": text(device.sqliteVersion?.description),
                "sqlite_build": .string(device.sqliteBuild.rawValue),
                "entry_point": text(device.entryPoint?.rawValue),
                "watchdog_ms": number(device.watchdogMs),
                "free_bytes": number(device.freeBytes),
                "memory_limit_bytes": number(device.memoryLimitBytes),
                "launches": .number(Double(device.launches)),
                "time_scale": .number(device.timeScale),
                "speed": device.speed.flatMap { try? JSONEncoder().encode($0) }.flatMap { JSONValue.parse(Array($0)) } ?? .null,
                "connection": .object(connection),
            ])
        }
        return .json(Array((JSONValue.object(["devices": .array(items)]).canonicalText + "\n").utf8))
    }

    /// A `keep=1` job's report, in the format `Accept` (or `format=`) asks for.
    func keptReport(_ id: String, accept: String?, format: String?) -> HTTPResponse {
        guard JobID.isWellFormed(id), let entry = kept.entry(id) else { return .error(unknownJob(id)) }
        do {
            return .report(entry.report, as: try ReportAnswer.choose(accept: accept, format: format))
        } catch {
            return .error(error)
        }
    }

    /// `GET /`: the upload page, listing the registered plans and the device catalog.
    func uploadPage() -> HTTPResponse {
        let page = UploadPage.html(plans: plans.names, devices: devices.sorted)
        return HTTPResponse(status: 200, contentType: ReportAnswer.pageContentType, body: .bytes(Array(page.utf8)))
    }

    /// A `keep=1` job's migrated database, streamed from its file.
    func keptDatabase(_ id: String) -> HTTPResponse {
        guard JobID.isWellFormed(id), let entry = kept.entry(id) else { return .error(unknownJob(id)) }
        guard let path = entry.databasePath, let size = fileSize(path) else {
            return .error(.notFound("job \(id) has no migrated database (its input was not a database)"))
        }
        var response = HTTPResponse(
            status: 200, contentType: "application/vnd.sqlite3", body: .file(path: path, size: size),
            headers: [
                HTTPError.Header(name: "Content-Disposition", value: "attachment; filename=\"\(id).db\""),
                HTTPError.Header(name: "Preflight-Outcome", value: entry.report.outcome.rawValue),
            ])
        response.jobID = id
        return response
    }

    private func unknownJob(_ id: String) -> HTTPError {
        .notFound("no job \(id): it was not run with keep=1, or its \(configuration.keepSeconds) s are over")
    }
}
