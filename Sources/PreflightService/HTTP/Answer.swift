/// How the service ends an exchange.
enum Answer: Sendable {
    /// Send this.
    case response(HTTPResponse)
    /// Send nothing: the client went away before its answer. Its job, if it had
    /// started, was cancelled, and its directory is removed. The request log counts the
    /// exchange with `RequestLog.clientClosedStatus`.
    case clientGone
}
