import MigrationCore

/// One request from its headers to the end of its answer: the per-request state that
/// libmicrohttpd keeps for `Daemon` in `*con_cls`. Used by one thread at a time: the
/// polling thread that serves the connection, or, while the connection is suspended for
/// its job, the thread that waits for the job (resuming the connection hands it back);
/// hence `@unchecked Sendable`.
final class Exchange: @unchecked Sendable {
    enum Stage {
        /// Nothing left to hand over: answered, or about to close.
        case over
        /// An answer decided after the headers, queued on the next call: one queued on the
        /// first call makes libmicrohttpd 0.9.75 close the connection, and keep-alive
        /// clients pay for that.
        case pending(HTTPResponse)
        /// The body is arriving into the job directory.
        case uploading(MigrationUpload)
        /// The connection is suspended while the job runs.
        case waiting
        /// The job's answer, queued once the connection is resumed.
        case answered(Answer)
        /// The job's progress and then its answer, streamed as they come (`ProgressStream`).
        case streaming(ProgressStream)
    }

    let started = ContinuousClock.now
    let request: Request
    var stage = Stage.over
    var bytesIn: Int64 = 0
    var jobID: String?
    var outcome: String?
    /// An internal error's request id and detail, which the log gets and the body does not.
    var fault: HTTPError.Fault?
    /// What was sent; nil while nothing was, and for good when the client left first.
    private var sent: (status: Int, bytes: Int64)?

    init(request: Request) {
        self.request = request
    }

    /// Notes the answer on its way out.
    func took(_ response: HTTPResponse) {
        sent = (response.status, response.body.count)
        jobID = response.jobID ?? jobID
        outcome = response.outcome ?? outcome
        fault = response.fault ?? fault
    }

    var logEntry: RequestLog.Entry {
        let elapsed = ContinuousClock.now - started
        return RequestLog.Entry(
            method: request.method, route: request.route?.label ?? Route.unmatchedLabel,
            status: sent?.status ?? RequestLog.clientClosedStatus, bytesIn: bytesIn, bytesOut: sent?.bytes ?? 0,
            ms: milliseconds(elapsed), jobID: jobID, outcome: outcome, fault: fault,
            seconds: seconds(elapsed))
    }
}
