import FoundationEssentials
import Logging
import VitrineConfig
import VitrineFleet
import VitrineJSON
import VitrineProtocol
import VitrineRaster
import VitrineSystem

/// Pictures of the screen for the broker (docs/REMOTE.md, "Thumbnails"): a `screenshot`
/// without `path` from the broker, and the periodic thumbnail of each output
/// (`[fleet] thumbnail_every`). The daemon draws the picture and encodes it as PNG on its
/// worker, as for any `screenshot`; the bridge decodes, scales and re-encodes it on its own
/// worker and publishes the image's bytes: a requested one on `vitrine/<device>/screenshot`
/// followed by the reply on `…/reply`, a periodic one retained on
/// `vitrine/<device>/thumbnail/<output>`.
///
/// The broker's requests are taken at most one per `[fleet] screenshot_interval` and one
/// at a time; others are refused with `limit_exceeded`, so a flood of them costs the screen
/// one picture a interval.
final class Screenshots {
    /// A picture asked of the daemon, and what becomes of it.
    struct Job {
        /// The request's `id`, for a broker's request; nil for a periodic thumbnail.
        var id: JSON?
        /// The output, as named in the request (nil: the primary one).
        var output: String?
        var spec: Thumbnail.Spec
        var periodic: Bool { id == nil }
    }

    /// What to do with a broker's request.
    enum Decision {
        /// Send `line` to the daemon for `job`.
        case send(line: [UInt8], job: Job)
        /// Answer with this reply line; nothing is asked of the daemon.
        case refuse(String)
    }

    private let device: String
    private let fleet: Configuration.Fleet
    private let session: MQTTSession
    private let loop: EventLoop
    private let workers: WorkerPool
    private let logger: Logger
    /// The monotonic second a broker's request was last taken.
    private var lastTaken: Double?
    /// A broker's picture is being made (asked of the daemon or encoding).
    private var busy = false
    /// Outputs whose periodic thumbnail is being made.
    private var thumbnailsInFlight: Set<String> = []
    private var timer: UInt64?
    /// Thumbnails published and refused requests, for `stats`.
    private(set) var published = 0
    private(set) var refused = 0

    /// Fields a broker's `screenshot` may have.
    static let fields: Set<String> = ["id", "cmd", "output", "cursor", "format", "width", "height", "maxBytes", "quality"]
    /// The largest box a request may ask for.
    static let largestSide = 4096

    var imageTopic: String { "vitrine/\(device)/screenshot" }
    func thumbnailTopic(_ output: String) -> String { "vitrine/\(device)/thumbnail/\(output)" }

    init(device: String, fleet: Configuration.Fleet, session: MQTTSession, loop: EventLoop, workers: WorkerPool, logger: Logger) {
        self.device = device
        self.fleet = fleet
        self.session = session
        self.loop = loop
        self.workers = workers
        self.logger = logger
    }

    /// The configured thumbnails' spec: `thumbnail_*`.
    var configuredSpec: Thumbnail.Spec {
        Thumbnail.Spec(
            format: Thumbnail.Format(rawValue: fleet.thumbnailFormat) ?? .jpeg, width: fleet.thumbnailWidth, height: fleet.thumbnailHeight,
            maxBytes: fleet.thumbnailMaxBytes)
    }

    // MARK: The broker's requests

    /// Whether `request` is one this type answers: a `screenshot` without `path` (one with
    /// `path` writes a file on the screen, as on the socket).
    static func handles(_ request: JSON?) -> Bool {
        request?["cmd"] == .string("screenshot") && request?["path"] == nil
    }

    /// Checks a broker's `screenshot` and the rate limit.
    func take(_ request: JSON) -> Decision {
        let id = request["id"]
        switch Self.job(from: request, defaults: configuredSpec) {
        case .failure(let error):
            refused += 1
            return .refuse(Wire.failure(id: id, error))
        case .success(let job):
            let now = Self.now
            if busy {
                refused += 1
                return .refuse(Wire.failure(id: id, ProtocolError(.limitExceeded, "a screenshot is being made already; ask again once its reply came")))
            }
            if let lastTaken, now - lastTaken < fleet.screenshotInterval {
                refused += 1
                let wait = fleet.screenshotInterval - (now - lastTaken)
                return .refuse(
                    Wire.failure(
                        id: id,
                        ProtocolError(
                            .limitExceeded,
                            "screenshots are taken at most one every \(fleet.screenshotInterval) s ([fleet] screenshot_interval); ask again in \(String(format: "%.2f", wait)) s"
                        )))
            }
            lastTaken = now
            busy = true
            return .send(line: Self.daemonLine(for: job, cursor: request["cursor"] == .bool(true)), job: job)
        }
    }

    /// A request's job, or what is wrong with it.
    static func job(from request: JSON, defaults: Thumbnail.Spec) -> Result<Job, ProtocolError> {
        guard let object = request.object else { return .failure(ProtocolError(.notAnObject, "a request is a JSON object")) }
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            return .failure(
                ProtocolError(
                    .unknownField, "screenshot over MQTT takes \(fields.sorted().joined(separator: ", ")) (and path, to write a file); not '\(unknown)'"))
        }
        var spec = defaults
        var output: String?
        if let value = object["output"] {
            guard let name = value.string else { return .failure(ProtocolError(.wrongType, "screenshot: \"output\" is an output's name, a string")) }
            output = name
        }
        if let value = object["cursor"], value.bool == nil {
            return .failure(ProtocolError(.wrongType, "screenshot: \"cursor\" is true or false"))
        }
        if let value = object["format"] {
            guard let format = value.string.flatMap(Thumbnail.Format.init(rawValue:)) else {
                return .failure(ProtocolError(.invalidValue, "screenshot: \"format\" is \"png\" or \"jpeg\", got \(value.text)"))
            }
            spec.format = format
        }
        for (key, range) in [("width", 16...largestSide), ("height", 16...largestSide), ("maxBytes", 1024...16_777_216), ("quality", 1...100)] {
            guard let value = object[key] else { continue }
            guard let number = value.number, number == number.rounded(), let whole = Int(exactly: number), range.contains(whole) else {
                return .failure(
                    ProtocolError(
                        .invalidValue, "screenshot: \"\(key)\" must be a whole number within \(range.lowerBound)…\(range.upperBound), got \(value.text)"))
            }
            switch key {
            case "width": spec.width = whole
            case "height": spec.height = whole
            case "maxBytes": spec.maxBytes = whole
            default: spec.quality = whole
            }
        }
        return .success(Job(id: request["id"] ?? .null, output: output, spec: spec))
    }

    /// The daemon's `screenshot` request for `job` (its PNG comes back base64-encoded).
    static func daemonLine(for job: Job, cursor: Bool) -> [UInt8] {
        var fields: [String: JSON] = ["id": .string("vitrine-fleet.screenshot"), "cmd": .string("screenshot")]
        if let output = job.output { fields["output"] = .string(output) }
        if cursor { fields["cursor"] = .bool(true) }
        return Array(JSON.object(fields).text.utf8)
    }

    private static var now: Double { Double(EventLoop.monotonicNanoseconds()) / 1e9 }

    // MARK: The daemon's answer

    /// The daemon answered `job`'s request with `line`: the image is made on the worker and
    /// published; a failure is answered (a broker's request) or logged (a thumbnail).
    func finish(_ job: Job, daemonReply line: ArraySlice<UInt8>, reply: @escaping (String) -> Void) {
        let answer = try? JSON(parsing: String(decoding: line, as: UTF8.self))
        guard answer?["ok"] == .bool(true), let base64 = answer?["result"]?["png"]?.string else {
            // The daemon's refusal (an unknown output, …) under the request's id.
            guard let answer, var object = answer.object, answer["error"] != nil else {
                return done(job, .failure(ProtocolError(.internalError, "the daemon's screenshot reply could not be read")), reply: reply)
            }
            object["id"] = job.id ?? .null
            if job.periodic {
                logger.warning("the thumbnail of output \(job.output ?? "primary") could not be made: \(answer["error"]?["message"]?.string ?? "")")
                return abandon(job)
            }
            busy = false
            return reply(JSON.object(object).text)
        }
        let spec = job.spec
        let submitted = workers.submit({ () -> Result<Thumbnail.Image, ProtocolError> in
            guard let png = Data(base64Encoded: base64) else { return .failure(ProtocolError(.internalError, "the daemon's PNG was not base64")) }
            let screen: Surface
            do { screen = try Surface(pngData: Array(png), name: "the daemon's screenshot") } catch {
                return .failure(ProtocolError(.internalError, "the daemon's PNG could not be decoded: \(error)"))
            }
            do throws(Thumbnail.Failure) { return .success(try Thumbnail.make(from: screen, spec)) } catch {
                return .failure(ProtocolError(.limitExceeded, error.message))
            }
        }) { [weak self] result in self?.done(job, result, reply: reply) }
        if !submitted { done(job, .failure(ProtocolError(.limitExceeded, "the bridge's worker is busy; ask again shortly")), reply: reply) }
    }

    private func done(_ job: Job, _ result: Result<Thumbnail.Image, ProtocolError>, reply: (String) -> Void) {
        if job.periodic {
            let output = job.output ?? "primary"
            thumbnailsInFlight.remove(output)
            switch result {
            case .success(let image):
                published += 1
                session.publish(thumbnailTopic(output), image.data, retain: true)
            case .failure(let error):
                logger.warning("the thumbnail of output \(output) could not be made: \(error.message)")
            }
            return
        }
        busy = false
        switch result {
        case .success(let image):
            published += 1
            session.publish(imageTopic, image.data)
            var fields: [String: JSON] = [
                "topic": .string(imageTopic), "format": .string(job.spec.format.rawValue),
                "size": .array([.number(Double(image.width)), .number(Double(image.height))]), "bytes": .number(Double(image.data.count)),
            ]
            fields["quality"] = image.quality.map { .number(Double($0)) }
            fields["output"] = job.output.map(JSON.string)
            reply(Wire.reply(id: job.id ?? .null, result: .object(fields)))
        case .failure(let error):
            reply(Wire.failure(id: job.id, error))
        }
    }

    /// The daemon went away before answering `job`.
    func abandon(_ job: Job) {
        if job.periodic { thumbnailsInFlight.remove(job.output ?? "primary") } else { busy = false }
    }

    // MARK: Periodic thumbnails

    /// Every `thumbnail_every` seconds, `enqueue` gets a job for each of `outputs()` whose
    /// last thumbnail is done. Nothing when `thumbnail_every` is 0.
    func startThumbnails(outputs: @escaping () -> [String], enqueue: @escaping (Job) -> Void) {
        guard fleet.thumbnailEvery > 0, timer == nil else { return }
        thumbnailOutputs = outputs
        enqueueThumbnail = enqueue
        timer = loop.schedule(after: 0) { [weak self] in self?.tick() }
    }

    private var thumbnailOutputs: () -> [String] = { [] }
    private var enqueueThumbnail: (Job) -> Void = { _ in }

    private func tick() {
        for output in thumbnailOutputs() where thumbnailsInFlight.insert(output).inserted {
            enqueueThumbnail(Job(id: nil, output: output, spec: configuredSpec))
        }
        timer = loop.schedule(after: Double(fleet.thumbnailEvery)) { [weak self] in self?.tick() }
    }

    func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }
}
