import VitrineJSON

/// One line from the daemon: the text as it came and its JSON.
struct Message {
    let line: String
    let json: JSON

    var isEvent: Bool { json["event"] != nil }

    /// The failure a reply reports, if it is an error reply.
    var failure: Failure? {
        guard json["ok"] != .bool(true) else { return nil }
        let error = json["error"]
        return .daemon(code: error?["code"]?.string ?? "error", message: error?["message"]?.string ?? line)
    }
}

/// A session with `vitrined`: numbered requests, their replies in order, and the
/// events that arrive in between. Every wait is bounded in real (monotonic) seconds.
final class Connection {
    private let socket: LineSocket
    /// Seconds to wait for each reply.
    let timeout: Double
    /// Seconds `--wait` waits for a transaction to complete; nil: as long as it takes.
    let waitTimeout: Double?
    private var lastID = 0

    /// Connects to the daemon's socket at `path`.
    init(path: String, timeout: Double, waitTimeout: Double? = nil) throws(Failure) {
        do {
            socket = try LineSocket(path: path)
        } catch {
            throw Self.failure(error, path: path, timeout: timeout)
        }
        self.timeout = timeout
        self.waitTimeout = waitTimeout
    }

    var path: String { socket.path }

    /// Sends `{"id": n, "cmd": cmd, …fields}` and returns its reply; events that arrive
    /// first go to `onEvent`.
    func request(_ cmd: String, _ fields: [String: JSON] = [:], onEvent: (Message) -> Void = { _ in }) throws(Failure) -> Message {
        lastID += 1
        var object = fields
        object["cmd"] = .string(cmd)
        object["id"] = .number(Double(lastID))
        try send(line: JSON.object(object).text)
        return try reply(onEvent: onEvent)
    }

    /// A request object as the user wrote it, given the next id when it has none.
    func numbered(_ object: [String: JSON]) -> [String: JSON] {
        guard object["id"] == nil else { return object }
        lastID += 1
        var numbered = object
        numbered["id"] = .number(Double(lastID))
        return numbered
    }

    func send(line: String) throws(Failure) {
        do { try socket.send(line: line) } catch { throw Self.failure(error, path: path, timeout: timeout) }
    }

    /// The next reply (replies come in request order), passing events before it to
    /// `onEvent`; within `timeout` seconds, or status 3.
    func reply(onEvent: (Message) -> Void) throws(Failure) -> Message {
        let deadline = Deadline(in: timeout)
        while true {
            guard let message = try next(until: deadline) else {
                throw Self.failure(.timedOut, path: path, timeout: timeout)
            }
            if !message.isEvent { return message }
            onEvent(message)
        }
    }

    /// The next line, or nil when none came by `deadline` (nil: wait for ever).
    func next(until deadline: Deadline?) throws(Failure) -> Message? {
        let line: String
        do {
            line = try socket.readLine(until: deadline)
        } catch .timedOut {
            return nil
        } catch {
            throw Self.failure(error, path: path, timeout: timeout)
        }
        guard let json = try? JSON(parsing: line) else {
            throw .local("vitrined sent a line that is not JSON: \(line.prefix(200))")
        }
        return Message(line: line, json: json)
    }

    /// Waits for `transaction.completed` of `transaction`, passing other events to
    /// `onEvent`; for `waitTimeout` seconds at most, then throws `Failure.waitTimedOut`.
    func waitForCompletion(of transaction: JSON, onEvent: (Message) -> Void = { _ in }) throws(Failure) {
        let deadline = waitTimeout.map { Deadline(in: $0) }
        while true {
            guard let message = try next(until: deadline) else {
                throw .waitTimedOut(
                    "transaction \(transaction.text) did not complete within \(JSON.number(waitTimeout ?? 0).text) s (see --timeout); its animations go on")
            }
            if message.json["event"]?.string == "transaction.completed", message.json["transaction"] == transaction { return }
            onEvent(message)
        }
    }

    private static func failure(_ error: LineSocket.Failure, path: String, timeout: Double) -> Failure {
        switch error {
        case .cannotConnect(let reason): .unreachable("cannot connect to vitrined at \(path): \(reason)")
        case .closed: .unreachable("vitrined at \(path) closed the connection")
        case .timedOut: .unreachable("vitrined at \(path) did not answer within \(JSON.number(timeout).text) s (see --timeout)")
        case .system(let call, let reason): .unreachable("\(call) on \(path) failed: \(reason)")
        }
    }
}
