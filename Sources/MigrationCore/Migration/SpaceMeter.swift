/// Where the migrator learns how much space it may use and how much a step used.
///
/// On a device this is the file system (`statvfs`); in Preflight it is the space VFS,
/// whose quota simulates a nearly full disk. A nil meter means "unlimited, unmeasured".
public protocol SpaceMeter: AnyObject {
    /// The VFS every connection on the migrated file must use, or nil for the default.
    var vfsName: String? { get }
    /// Free bytes left now; nil for unlimited.
    func freeBytes() -> Int64?
    /// Starts measuring one step.
    func beginStep(_ version: Int)
    /// What the current step used so far.
    func stepSpace() -> StepSpace
}
