import CSQLite

/// The actions SQLite's authorizer reports while a statement is prepared
/// (https://sqlite.org/c3ref/set_authorizer.html): which tables and indexes a
/// statement creates, alters, drops, reads or writes, known before it runs.
public struct AuthorizedAction: Sendable, Equatable {
    public var code: Int32
    /// The action's first and second arguments (for CREATE INDEX: index and table name).
    public var first: String?
    public var second: String?
    /// The database the action is in (`main`, `temp`), when it names one.
    public var database: String?
}

/// A connection's one authorizer callback, installed when the connection opens: it
/// records the actions of a prepare when asked (the cost class, the space estimate),
/// and while a plan's SQL is prepared or run it refuses what plan SQL must not do
/// (`PlanSQLPolicy`). Record first, then decide, so that a refused statement's actions
/// are still seen.
///
/// A class, because SQLite holds a pointer to it for as long as the connection is open.
final class Authorizer {
    /// The actions reported since `recording` began; nil when nothing records.
    private var recorded: [AuthorizedAction]?
    /// True while plan SQL is prepared or stepped (`confining`).
    private var confines = false
    /// Why plan SQL was refused in the current confined scope, the first reason only.
    private var denial: String?

    /// Neither recording nor confining: Preflight's own SQL, which costs no more than a call.
    fileprivate var isIdle: Bool { recorded == nil && !confines }

    fileprivate func authorize(code: Int32, first: String?, second: String?, database: String?) -> Int32 {
        recorded?.append(AuthorizedAction(code: code, first: first, second: second, database: database))
        guard confines, let reason = PlanSQLPolicy.refusal(code: code, first: first, second: second) else {
            return SQLITE_OK
        }
        if denial == nil { denial = reason }
        return SQLITE_DENY
    }

    /// Runs `body` (a prepare, or a step: SQLite prepares statements of its own while
    /// one runs, such as the ATTACH inside VACUUM INTO) with plan SQL's policy in force.
    /// A refusal comes out as an `SQLITE_AUTH` error whose message says what was refused
    /// and why, instead of SQLite's bare "not authorized".
    func confining<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        let (outerConfines, outerDenial) = (confines, denial)
        confines = true
        denial = nil
        defer { (confines, denial) = (outerConfines, outerDenial) }
        do {
            return try body()
        } catch {
            guard let denial else { throw error }
            throw SQLiteError(code: SQLITE_AUTH, message: denial, sql: error.sql)
        }
    }

    /// Runs `body` and returns what it gave with the actions reported meanwhile.
    func recording<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> (T, [AuthorizedAction]) {
        let outer = recorded
        recorded = []
        defer { recorded = outer.map { $0 + (recorded ?? []) } }
        let result = try body()
        return (result, recorded ?? [])
    }

    /// Installs the callback on `handle`; `self` must outlive the connection.
    func install(on handle: OpaquePointer) {
        sqlite3_set_authorizer(handle, authorizeAction, Unmanaged.passUnretained(self).toOpaque())
    }
}

/// The C callback: a plain function, since C cannot call a Swift closure that captures
/// context; the authorizer comes back through SQLite's user-data pointer.
private func authorizeAction(
    _ context: UnsafeMutableRawPointer?, _ code: Int32, _ first: UnsafePointer<CChar>?,
    _ second: UnsafePointer<CChar>?, _ database: UnsafePointer<CChar>?, _ trigger: UnsafePointer<CChar>?
) -> Int32 {
    guard let context else { return SQLITE_OK }
    let authorizer = Unmanaged<Authorizer>.fromOpaque(context).takeUnretainedValue()
    guard !authorizer.isIdle else { return SQLITE_OK }
    return authorizer.authorize(
        code: code, first: first.map { String(cString: $0) }, second: second.map { String(cString: $0) },
        database: database.map { String(cString: $0) })
}
