import Glibc
import Logging
import VitrineImage
import VitrineJSON
import VitrineProtocol
import VitrineSystem

/// The daemon's side of the decoder helper (`vitrine-decoder`): pictures are decoded in
/// other processes, so that a malformed or hostile file can crash, hang or exhaust only
/// a helper, never the process that owns the screen.
///
/// Up to `Settings.helpers` helpers run at once, each decoding one file at a time; each is
/// started when first needed and again after it ends. A helper that crashes, is killed by
/// its system-call filter or its memory limit, or takes longer than `Settings.timeout` for
/// one file fails that file with a message that says so (the helper is killed and, after a
/// backoff that grows with each failure in a row, started again); the other files keep
/// decoding. Requests and replies are messages on a socket pair, files go over as open
/// descriptors, pictures come back in sealed shared memory that the frames are drawn from
/// as they are (no copy).
///
/// With a loop, `decode` returns at once and completes on the loop; without one (`vitrined
/// render`, programs that draw by hand) it waits for the helper.
public final class DecoderClient {
    public struct Settings: Sendable {
        /// The helper program's path.
        public var executable: String
        /// The longest one file may take to decode.
        public var timeout: Double = 10
        /// The helpers' data limit (heap and private mappings), in bytes.
        public var memoryBytes: Int = 512 << 20
        /// Helpers that decode at once.
        public var helpers: Int = 2

        public init(executable: String) { self.executable = executable }
    }

    public typealias Completion = (Result<Picture, ProtocolError>) -> Void

    public let settings: Settings
    private let loop: EventLoop?
    private let logger: Logger
    private var idle: [Helper] = []
    private var busy: [Helper] = []
    private var waiting: [Job] = []
    private var nextID = 0
    /// Failures in a row (crashes, timeouts), and when the next helper may start.
    private var failures = 0
    private var restartAt = 0.0
    private var restartTicket: UInt64?
    /// Helpers started, for `stats`.
    public private(set) var started = 0
    /// The process ids of the helpers running now.
    public var processIDs: [pid_t] { (idle + busy).map(\.process.pid) }

    struct Job {
        let request: DecodeRequest
        let file: OwnedDescriptor
        let completion: Completion
    }

    public init(settings: Settings, loop: EventLoop?, logger: Logger) {
        self.settings = settings
        self.loop = loop
        self.logger = logger
    }

    deinit {
        for helper in idle + busy { helper.stop() }
    }

    /// The helper program next to the running one (`vitrined` and `vitrine-decoder` are
    /// built and installed side by side), else the package's.
    public static func defaultExecutable() -> String {
        if let own = Subprocess.ownExecutable() {
            let sibling = String(own[..<(own.lastIndex(of: "/") ?? own.endIndex)]) + "/vitrine-decoder"
            if access(sibling, X_OK) == 0 { return sibling }
        }
        return "/usr/libexec/vitrine/vitrine-decoder"
    }

    /// Decodes the file open as `file` (its path `name`, for messages) for `target` (see
    /// `DecodeRequest`), its pixels within `budget` bytes; `completion` gets the picture
    /// or the error to report (`content_failed`, or `limit_exceeded` over the budget).
    public func decode(
        file: OwnedDescriptor, name: String, target: TargetSize?, output: TargetSize, budget: Int, completion: @escaping Completion
    ) {
        nextID += 1
        let job = Job(request: DecodeRequest(id: nextID, name: name, target: target, output: output, budget: budget), file: file, completion: completion)
        guard loop != nil else { return completion(decodeNow(job)) }
        waiting.append(job)
        pump()
    }

    /// An `ImageStore` loader for programs without a loop (`vitrined render`): reads the
    /// file at a path and waits for the helper to decode it for the size asked (full size
    /// when none), within `budget` bytes.
    public func loader(budget: Int = 1 << 30) -> (String, TargetSize?) throws -> Picture {
        { [self] path, target in
            let (file, _) = try SafeFile.open(path, limit: ImageLimits.fileLimit)
            var result: Result<Picture, ProtocolError>?
            let whole = TargetSize(width: ImageLimits.maximumSide, height: ImageLimits.maximumSide)
            decode(file: file, name: path, target: target, output: whole, budget: budget) { result = $0 }
            guard let result else { throw ProtocolError(.internalError, "\(path): the decoder did not answer") }
            return try result.get()
        }
    }

    // MARK: With a loop

    private func pump() {
        while !waiting.isEmpty {
            guard let helper = idle.popLast() ?? startIfAllowed() else { return }
            let job = waiting.removeFirst()
            do {
                try helper.send(job)
            } catch {
                helper.stop()
                job.completion(.failure(ProtocolError(.contentFailed, "\(job.request.name): cannot be handed to the image decoder: \(error.message)")))
                continue
            }
            busy.append(helper)
            helper.deadline = loop!.schedule(after: settings.timeout) { [weak self, weak helper] in
                guard let self, let helper, helper.job?.request.id == job.request.id else { return }
                fail(helper, "took longer than \(Self.seconds(settings.timeout)) to decode; the decoder was stopped")
            }
        }
    }

    /// A new helper, unless as many run as may or a backoff holds them back.
    private func startIfAllowed() -> Helper? {
        guard idle.count + busy.count < settings.helpers else { return nil }
        let now = EventLoop.monotonicSeconds
        if now < restartAt {
            if restartTicket == nil {
                restartTicket = loop!.schedule(after: restartAt - now) { [weak self] in
                    self?.restartTicket = nil
                    self?.pump()
                }
            }
            return nil
        }
        do {
            let helper = try Helper(settings: settings)
            started += 1
            try loop!.watch(helper.socket.rawValue, for: .readable) { [weak self, unowned helper] _ in self?.replied(helper) }
            try loop!.watch(helper.process.pidfd, for: .readable) { [weak self, unowned helper] _ in self?.ended(helper) }
            try loop!.watch(helper.process.output, for: .readable) { [weak self, unowned helper] _ in self?.log(helper) }
            return helper
        } catch {
            logger.error("the image decoder cannot start: \(error.message)")
            noteFailure()
            for job in waiting {
                job.completion(.failure(ProtocolError(.contentFailed, "\(job.request.name): the image decoder cannot start: \(error.message)")))
            }
            waiting.removeAll()
            return nil
        }
    }

    private func replied(_ helper: Helper) {
        let message: (bytes: [UInt8], descriptors: [OwnedDescriptor])?
        do { message = try DescriptorMessages.receive(on: helper.socket.rawValue, limit: DecodeRequest.messageLimit) } catch {
            if error.code == .wouldBlock { return }
            return fail(helper, "sent what cannot be read (\(error.message)); the decoder was stopped")
        }
        guard let message else {
            // It hung up: how it ended comes through its pidfd (`ended`), at once.
            loop?.unwatch(helper.socket.rawValue)
            helper.process.signalGroup(SIGKILL)
            return
        }
        guard let job = helper.job else { return fail(helper, "answered when nothing was asked; the decoder was stopped") }
        switch Self.result(of: message, for: job.request) {
        case .success(let picture):
            finish(helper, .success(picture))
            failures = 0
        case .failure(let reply):
            if let malformed = reply.malformed { return fail(helper, malformed) }
            finish(helper, .failure(reply.error))
        }
    }

    /// The job done: its completion runs, the helper takes the next.
    private func finish(_ helper: Helper, _ result: Result<Picture, ProtocolError>) {
        guard let job = helper.job else { return }
        helper.job = nil
        if let deadline = helper.deadline { loop?.cancel(deadline) }
        busy.removeAll { $0 === helper }
        idle.append(helper)
        job.completion(result)
        pump()
    }

    /// Stops `helper` (its job, if any, fails with `reason`); a new one starts after the backoff.
    private func fail(_ helper: Helper, _ reason: String) {
        let job = helper.job
        retire(helper)
        noteFailure()
        logger.warning("image decoder: \(job.map { "\($0.request.name): " } ?? "")\(reason)")
        job?.completion(.failure(ProtocolError(.contentFailed, "\(job!.request.name): the image decoder \(reason)")))
        pump()
    }

    /// The helper's process ended (or its socket closed): its job fails with how it ended.
    private func ended(_ helper: Helper) {
        guard idle.contains(where: { $0 === helper }) || busy.contains(where: { $0 === helper }) else { return }
        // (the pidfd is readable: the process has ended, and is reaped without a wait)
        let ending = helper.process.reap()
        guard helper.job != nil else {
            retire(helper)
            if ending != .exited(0) { logger.warning("image decoder ended (\(ending.map(\.description) ?? "its socket closed")) while idle") }
            return pump()
        }
        log(helper)
        fail(helper, helper.allocationFailed ? outOfMemory : Self.describe(ending))
    }

    private var outOfMemory: String { "ran out of the memory it may use (\(settings.memoryBytes >> 20) MB) and was stopped" }

    /// How `helper`'s process ended, waiting up to a second for its pidfd (without a loop).
    private func waitForEnding(_ helper: Helper) -> Subprocess.Ending? {
        var ended = pollfd(fd: helper.process.pidfd, events: Int16(POLLIN), revents: 0)
        _ = retryingOnInterrupt { poll(&ended, 1, 1000) }
        return helper.process.reap()
    }

    private func retire(_ helper: Helper) {
        if let deadline = helper.deadline { loop?.cancel(deadline) }
        loop?.unwatch(helper.socket.rawValue)
        loop?.unwatch(helper.process.pidfd)
        if helper.process.output >= 0 { loop?.unwatch(helper.process.output) }
        log(helper)
        idle.removeAll { $0 === helper }
        busy.removeAll { $0 === helper }
        helper.stop()
    }

    private func noteFailure() {
        failures += 1
        let backoff = failures <= 1 ? 0 : min(8, 0.125 * Double(1 << min(failures - 1, 7)))
        restartAt = EventLoop.monotonicSeconds + backoff
    }

    private func log(_ helper: Helper) {
        helper.drainOutput { line in
            logger.warning("image decoder: \(line)")
            if line.contains("failed to allocate") { helper.allocationFailed = true }
        }
    }

    // MARK: Without a loop

    private func decodeNow(_ job: Job) -> Result<Picture, ProtocolError> {
        let helper: Helper
        if let reused = idle.popLast() {
            helper = reused
        } else {
            do throws(SystemError) { helper = try Helper(settings: settings) } catch {
                return .failure(ProtocolError(.contentFailed, "\(job.request.name): the image decoder cannot start: \(error.message)"))
            }
        }
        do { try helper.send(job) } catch {
            helper.stop()
            return .failure(ProtocolError(.contentFailed, "\(job.request.name): cannot be handed to the image decoder: \(error.message)"))
        }
        var ready = pollfd(fd: helper.socket.rawValue, events: Int16(POLLIN), revents: 0)
        let waited = retryingOnInterrupt { poll(&ready, 1, Int32(settings.timeout * 1000)) }
        let received = waited == 1 ? try? DescriptorMessages.receive(on: helper.socket.rawValue, limit: DecodeRequest.messageLimit) : nil
        guard let message = received else {
            helper.process.signalGroup(SIGKILL)
            let reason =
                waited == 0 ? "took longer than \(Self.seconds(settings.timeout)) to decode; the decoder was stopped" : Self.describe(waitForEnding(helper))
            helper.stop()
            return .failure(ProtocolError(.contentFailed, "\(job.request.name): the image decoder \(reason)"))
        }
        helper.job = nil
        switch Self.result(of: message, for: job.request) {
        case .success(let picture):
            idle.append(helper)
            return .success(picture)
        case .failure(let reply):
            if let malformed = reply.malformed {
                helper.stop()
                return .failure(ProtocolError(.contentFailed, "\(job.request.name): the image decoder \(malformed)"))
            }
            idle.append(helper)
            return .failure(reply.error)
        }
    }

    // MARK: Replies

    public struct ReplyFailure: Error {
        /// What the helper said (the file cannot be shown).
        public var error: ProtocolError
        /// Set when the helper broke the protocol: what it did.
        public var malformed: String?
    }

    /// The picture (or error) in a helper's reply to `request`, checked: a malformed reply
    /// or shared memory that is not what it says is refused, and nothing of it is kept.
    public static func result(of message: (bytes: [UInt8], descriptors: [OwnedDescriptor]), for request: DecodeRequest) -> Result<Picture, ReplyFailure> {
        func malformed(_ what: String) -> Result<Picture, ReplyFailure> {
            .failure(ReplyFailure(error: ProtocolError(.contentFailed, ""), malformed: what + "; the decoder was stopped"))
        }
        guard let json = try? JSON(parsing: String(decoding: message.bytes, as: UTF8.self)), let reply = DecodeReply(json, budget: request.budget)
        else { return malformed("sent a malformed reply") }
        switch reply {
        case .failure(let id, let error):
            guard id == request.id, message.descriptors.isEmpty else { return malformed("answered another request") }
            return .failure(ReplyFailure(error: error))
        case .picture(let id, let layout):
            guard id == request.id else { return malformed("answered another request") }
            guard message.descriptors.count == 1 else { return malformed("sent \(message.descriptors.count) descriptors with a picture") }
            do { return .success(layout.picture(in: try SharedMemory(sealed: message.descriptors[0], size: layout.size))) } catch {
                return malformed("handed back pixels that cannot be used (\(error.message))")
            }
        }
    }

    static func describe(_ ending: Subprocess.Ending?) -> String {
        switch ending {
        case .signaled(SIGSYS)?: "made a system call its filter forbids (SIGSYS) and was stopped"
        case .signaled(SIGKILL)?: "was killed (SIGKILL: out of memory, or by an operator)"
        case .signaled(let number)?: "crashed (\(Subprocess.signalName(number)))"
        case .exited(let status)?: "ended (exit status \(status)) before it answered"
        case .unknown?, nil: "ended before it answered"
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

/// One helper process and its end of the socket pair.
final class Helper {
    let process: Subprocess
    let socket: OwnedDescriptor
    var job: DecoderClient.Job?
    var deadline: UInt64?
    var lines = OutputLines(maximumLine: 1024)
    /// It said an allocation failed (the runtime's last words when its data limit is hit).
    var allocationFailed = false

    /// Starts the helper with `arguments` after its memory limit, its socket as descriptor
    /// 3 and `passing` from 4 on.
    init(settings: DecoderClient.Settings, arguments: [String] = [], passing: [CInt] = []) throws(SystemError) {
        var pair: [CInt] = [-1, -1]
        guard socketpair(AF_UNIX, CInt(SOCK_SEQPACKET.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .errno("make a socket pair", "the image decoder")
        }
        let ours = OwnedDescriptor(pair[0]), theirs = OwnedDescriptor(pair[1])
        // (Swift's crash reporter would run a program, which the filter forbids)
        var variables = Subprocess.inheritedEnvironment()
        variables["SWIFT_BACKTRACE"] = "enable=no"
        let environment = variables.map { "\($0.key)=\($0.value)" }
        process = try Subprocess(
            program: settings.executable, arguments: ["vitrine-decoder", "--memory-bytes", String(settings.memoryBytes)] + arguments,
            environment: environment, passing: [theirs.rawValue] + passing)
        theirs.close()
        _ = fcntl(ours.rawValue, F_SETFL, fcntl(ours.rawValue, F_GETFL) | O_NONBLOCK)
        socket = ours
    }

    func send(_ job: DecoderClient.Job) throws(SystemError) {
        try withExtendedLifetime(job.file) { () throws(SystemError) in
            try DescriptorMessages.send(Array(job.request.json.text.utf8), descriptors: [job.file.rawValue], on: socket.rawValue)
        }
        job.file.close()
        self.job = job
    }

    /// Reads what the helper wrote to its standard output and error, a line at a time.
    func drainOutput(_ each: (String) -> Void) {
        guard process.output >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(process.output, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            lines.take(buffer.prefix(count), each)
        }
    }

    /// Kills the process group and closes the socket; the process is reaped by `Subprocess`.
    func stop() {
        process.signalGroup(SIGKILL)
        socket.close()
        if process.reap() == nil {
            var status: Int32 = 0
            _ = retryingOnInterrupt { waitpid(process.pid, &status, 0) }
        }
    }
}
