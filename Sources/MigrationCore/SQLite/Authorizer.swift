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

/// Collects authorizer callbacks for one `prepare`. A class, because SQLite holds a
/// pointer to it for as long as the authorizer is installed.
final class ActionRecorder {
    var actions: [AuthorizedAction] = []
}

/// The authorizer callback: a plain function, since C cannot call a Swift closure that
/// captures context; the recorder comes back through SQLite's user-data pointer.
private func recordAction(
    _ context: UnsafeMutableRawPointer?, _ code: Int32, _ first: UnsafePointer<CChar>?,
    _ second: UnsafePointer<CChar>?, _ database: UnsafePointer<CChar>?, _ trigger: UnsafePointer<CChar>?
) -> Int32 {
    guard let context else { return SQLITE_OK }
    let recorder = Unmanaged<ActionRecorder>.fromOpaque(context).takeUnretainedValue()
    recorder.actions.append(
        AuthorizedAction(
            code: code, first: first.map { String(cString: $0) }, second: second.map { String(cString: $0) },
            database: database.map { String(cString: $0) }))
    return SQLITE_OK
}

extension Connection {
    /// Prepares `sql` with the authorizer installed and returns the statement with the
    /// actions SQLite reported for it.
    func prepareRecordingActions(_ sql: String) throws(SQLiteError) -> (Statement, [AuthorizedAction]) {
        let recorder = ActionRecorder()
        let pointer = Unmanaged.passRetained(recorder)
        sqlite3_set_authorizer(handle, recordAction, pointer.toOpaque())
        defer {
            sqlite3_set_authorizer(handle, nil, nil)
            pointer.release()
        }
        let statement = try prepare(sql)
        return (statement, recorder.actions)
    }
}
