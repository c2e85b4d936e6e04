/// Which path the app's framework took on the run's first launch (the report's
/// `first_launch`, docs/CONTRACT.md §3): its create path, which makes the newest schema
/// with no migration (Room's and `SQLiteOpenHelper`'s `onCreate`, SQLDelight's
/// `Schema.create`, Drift's `createAll`), or its migrations.
public enum FirstLaunch: String, Sendable, Codable {
    case created
    case migrated
}
