import Dispatch
import Glibc

/// The second half of an answer given in the middle of a body (`preflight_answer_mid_body`
/// sends it and hands back a duplicate of the socket): reads and drops what the client
/// still sends for a while, then closes, so that the client reads the answer rather than
/// a reset. One dispatch queue serves every such socket: lingering costs a descriptor for
/// that while, and holds neither libmicrohttpd's polling thread nor a thread of its own.
enum LingeringClose {
    private static let queue = DispatchQueue(label: "preflight.lingering-close")

    /// Drains `descriptor` (which it then owns) until the client closes or `milliseconds` pass.
    static func drain(_ descriptor: Int32, milliseconds: Int) {
        let source = ReadSource(source: DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue))
        source.source.setEventHandler {
            var sink = [UInt8](repeating: 0, count: 16384)
            let count = read(descriptor, &sink, sink.count)
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { source.cancel() }
        }
        source.source.setCancelHandler { close(descriptor) }
        queue.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { source.cancel() }
        source.source.resume()
    }

    /// A dispatch source, which may be cancelled from any thread (and more than once),
    /// though Dispatch does not say it is `Sendable`.
    private struct ReadSource: @unchecked Sendable {
        let source: any DispatchSourceRead

        func cancel() { source.cancel() }
    }
}
