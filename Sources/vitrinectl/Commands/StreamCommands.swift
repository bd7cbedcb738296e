import VitrineJSON
import ArgumentParser
import Glibc

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send raw requests and print every reply and event as JSON lines.",
        discussion: """
            Requests come from the arguments or, without any, one per line from standard input. \
            A request object without an "id" gets the next number. Each request waits for its \
            reply; the events that arrive before it are printed first. The exit status is 1 if \
            any request failed.
            Example: echo '{"cmd": "layer.tree"}' | vitrinectl send
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("Requests as JSON objects (default: lines from standard input).", valueName: "json"))
    var requests: [String] = []

    /// Optional rather than 0 by default, for the reason `ConnectionOptions.socket` gives.
    @Option(help: ArgumentHelp("After the last reply, print events for this many seconds more (default 0).", valueName: "seconds"))
    var linger: Double?

    func validate() throws {
        if let linger, !(linger.isFinite && linger >= 0) { throw ValidationError("--linger is a number of seconds ≥ 0") }
    }

    func run() throws {
        let session = try connection.connect()
        var failed = false
        var arguments = requests.makeIterator()
        let nextLine: () -> String? = requests.isEmpty ? { readLine() } : { arguments.next() }
        while let line = nextLine() {
            let text = line.trimmed(\.isWhitespace)
            guard !text.isEmpty else { continue }
            try session.send(line: Self.numbered(String(text), by: session))
            let reply = try session.reply { Output.line($0.line) }
            Output.line(reply.line)
            if let failure = reply.failure {
                Output.error(failure.message)
                failed = true
            }
        }
        let deadline = Deadline(in: linger ?? 0)
        while deadline.remaining > 0, let message = try session.next(until: deadline) {
            Output.line(message.line)
        }
        if failed { throw ExitCode.failure }
    }

    /// The request with an id added when it is an object without one; anything else is
    /// sent as written, for the daemon to judge.
    private static func numbered(_ text: String, by session: Connection) -> String {
        guard case .object(let object)? = try? JSON(parsing: text), object["id"] == nil else { return text }
        return JSON.object(session.numbered(object)).text
    }
}

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Subscribe to events and print them as JSON lines until interrupted.",
        discussion: """
            Patterns are event names or prefixes such as animation.*; the events are \
            \(eventNames.joined(separator: ", ")). With --timeout S it stops after S seconds: \
            with status 4 if --count events have not come by then.
            Example: vitrinectl watch 'animation.*' --count 2 --timeout 30
            """)

    /// The daemon's events (VitrineProtocol's `Wire.eventNames`, which a test compares).
    static let eventNames = [
        "animation.started", "animation.finished", "transaction.completed", "number.completed", "config.reloaded", "content.failed",
        "input.key", "input.touch", "input.pointer", "layer.press", "layer.release", "layer.tap", "layer.longPress", "layer.drag",
        "layer.cancel", "binding.failed", "video.started", "video.ended", "video.error", "output.power",
        "output.resized", "surface.mapped", "surface.unmapped", "client.started", "client.exited", "client.failed",
        "output.added", "output.removed", "surface.unresponsive", "surface.responsive", "surface.assigned", "input.idle", "input.active",
        "osk.text", "osk.key", "content.stalled", "content.resumed", "remote.connected", "remote.disconnected", "cec.power",
        "playlog.entry", "scene.loaded", "playlist.item", "playlist.skipped",
    ]

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("Event names or patterns (default: *).", valueName: "pattern"))
    var patterns: [String] = []

    @Option(help: ArgumentHelp("Stop after this many events.", valueName: "n"))
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count is at least 1") }
    }

    func run() throws {
        let session = try connection.connect()
        var seen = 0
        func show(_ event: Message) -> Bool {
            Output.line(event.line)
            seen += 1
            return seen == count
        }
        var done = false
        let reply = try session.request("subscribe", ["events": .array((patterns.isEmpty ? ["*"] : patterns).map(JSON.string))]) {
            done = done || show($0)
        }
        if let failure = reply.failure { throw failure }
        let deadline = connection.givenTimeout.map { Deadline(in: $0) }
        while !done {
            guard let message = try session.next(until: deadline) else {
                guard let count else { return }
                throw Failure.waitTimedOut("\(seen) of \(count) events came within \(JSON.number(connection.timeout).text) s (see --timeout)")
            }
            if message.isEvent { done = show(message) }
        }
    }
}
