import CDeviceSQL
import CSQLite

/// The SQLite Preflight links, whose release can be older than a device's.
public enum LinkedSQLite {
    /// `sqlite3_libversion()`: "3.40.1" on Debian bookworm.
    public static let version: SQLiteVersion = SQLiteVersion(String(cString: sqlite3_libversion())) ?? SQLiteVersion(3, 0, 0)

    /// The functions SQLite added after some linked release that Preflight defines itself
    /// when the linked SQLite lacks them and the device has them (CDeviceSQL's
    /// newer_functions.c, checked against SQLite 3.44.2). Any other feature newer than the
    /// linked SQLite cannot be rehearsed here (`Failure.Kind.engineLacksFeature`).
    public static let providedFunctions: Set<String> = ["unhex", "octet_length", "concat", "concat_ws", "string_agg"]
}

extension Connection {
    /// Defines the functions `device`'s SQLite has and the linked one lacks, of those
    /// Preflight provides, as the device's own would answer them.
    func defineNewerFunctions(for device: SQLiteVersion) throws(SQLiteError) {
        for name in LinkedSQLite.providedFunctions.sorted() {
            guard let introduced = SQLiteFeature.functions[name]?.version, introduced > LinkedSQLite.version,
                introduced <= device
            else { continue }
            let code = preflight_define_newer_function(handle, name)
            guard code == SQLITE_OK else {
                throw SQLiteError(code: code, message: "cannot define the SQL function \(name)(): \(String(cString: sqlite3_errmsg(handle)))")
            }
        }
    }

    /// Defines what an Android connection has beyond stock SQLite: ICU's `lower`, `upper`,
    /// `LIKE` and `REGEXP`, and the framework's `LOCALIZED`, `PHONEBOOK` and `UNICODE`
    /// collations for `locale` (CDeviceSQL's android_sql.c).
    func defineAndroidSQL(locale: String) throws(SQLiteError) {
        let code = preflight_define_android_sql(handle, locale)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: "cannot define Android's SQL functions and collations for the locale \"\(locale)\"")
        }
    }
}

extension ConnectionSettings {
    /// Defines on `connection` what the platform adds to each connection it opens, before
    /// any other SQL of the app runs.
    public func defineFunctions(on connection: Connection) throws(SQLiteError) {
        if androidFunctions == true { try connection.defineAndroidSQL(locale: locale ?? Self.defaultLocale) }
    }

    /// The locale an Android profile that names none is taken to have.
    public static let defaultLocale = "en_US"
}

extension MigrationSettings {
    /// Defines on a connection the platform's functions and collations and those of the
    /// device's SQLite that Preflight provides.
    func defineFunctions(on connection: Connection) throws(SQLiteError) {
        try self.connection.defineFunctions(on: connection)
        if let sqliteVersion { try connection.defineNewerFunctions(for: sqliteVersion) }
    }

    /// The first use in `step` of a feature the device's SQLite has and the linked SQLite
    /// lacks, which Preflight does not provide: the step cannot be rehearsed here, and
    /// saying so is truer than SQLite's "no such function", which the device never says.
    func engineFailure(of step: Step) -> Failure? {
        guard let sqliteVersion else { return nil }
        let missing = step.sqliteFeatures().first { use in
            use.feature.introduced > LinkedSQLite.version && use.feature.introduced <= sqliteVersion
                && !LinkedSQLite.providedFunctions.contains(where: { use.feature == SQLiteFeature.function($0) })
        }
        guard let use = missing else { return nil }
        return Failure(
            kind: Failure.Kind.engineLacksFeature, step: step.version,
            message: "step \(step.version) (\"\(step.name)\") uses \(use.feature.name), which SQLite \(use.feature.introduced) introduced: the device's SQLite \(sqliteVersion) has it, but Preflight's engine (SQLite \(LinkedSQLite.version)) lacks it, so this step cannot be rehearsed here; nothing was changed",
            statement: use.statement)
    }
}

extension Failure.Kind {
    /// A step used an SQL feature the device's SQLite has and Preflight's engine lacks.
    public static let engineLacksFeature = Failure.Kind(rawValue: "engine_lacks_feature")
}
