import Glibc

/// An exclusive `flock(2)` on one key's lock file in the `SynthesisCache`: held while the
/// entry is read, made or removed, so that two jobs (threads or processes) wanting one
/// file make it once. The kernel lets go of it when its holder dies, a SIGKILL included.
///
/// A lock file may be removed (with its entry, by eviction) while another waits on it:
/// whoever takes the lock checks that the file it locked is still the one at the path,
/// and else opens it again.
final class CacheLock {
    private let descriptor: Int32
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    enum Waited: Error {
        case cancelled
        case timeLimit
        case cannotOpen(String)
    }

    /// Waits for the lock at `path`, polling so that a stop or the deadline ends the wait;
    /// `waiting` is called once, when another holds it.
    static func acquire(
        _ path: String, deadline: ContinuousClock.Instant, cancellation: JobCancellation, waiting: () -> Void
    ) throws(Waited) -> CacheLock {
        var told = false
        while true {
            if let lock = try attempt(path) { return lock }
            if cancellation.isCancelled { throw .cancelled }
            if ContinuousClock.now >= deadline { throw .timeLimit }
            if !told {
                waiting()
                told = true
            }
            usleep(20_000)
        }
    }

    /// The lock if it is free now; nil when another holds it.
    static func attempt(_ path: String) throws(Waited) -> CacheLock? {
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .cannotOpen("cannot open \(path): \(String(cString: strerror(errno)))") }
            var result: Int32
            repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
            guard result == 0 else {
                close(descriptor)
                return nil
            }
            var held = stat(), named = stat()
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                return CacheLock(descriptor: descriptor, path: path)
            }
            // Removed (or replaced) while this waited for it: lock the one there now.
            close(descriptor)
        }
    }

    /// Removes the lock file while it is held, so that an evicted key leaves nothing.
    func removeFile() {
        unlink(path)
    }
}
