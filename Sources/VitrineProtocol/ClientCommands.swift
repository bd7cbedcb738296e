/// A program the daemon runs as a client (a browser, a video player): how to start it and
/// when to start it again. `[[clients]]` tables and `client.start` requests decode into it.
public struct ClientProgram: Sendable, Hashable {
    /// When an exited client is started again.
    public enum Restart: String, Sendable, CaseIterable {
        /// Never: it stays exited.
        case never
        /// When it exited with a status other than 0 or was ended by a signal.
        case onFailure = "on-failure"
        /// Whenever it exits (`client.stop` stops it for good).
        case always
    }

    /// The program and its arguments; a program without a "/" is looked up in PATH.
    public var command: [String]
    /// Variables added to (or replacing) the daemon's environment.
    public var environment: [String: String] = [:]
    /// The absolute working directory; "" for the daemon's.
    public var directory = ""
    public var restart: Restart = .onFailure
    /// The longest wait before a restart: the first waits 1 s, each next one twice as long.
    public var restartMaxSeconds = 30
    /// Restarts allowed within a minute; one exit more and the daemon gives up.
    public var restartsPerMinute = 5
    /// How long a stop waits after SIGTERM before SIGKILL.
    public var stopSeconds = 5.0
    /// Seconds its window may stay unresponsive (unanswered pings) before its process
    /// group is killed (SIGKILL) and started again, whatever `restart` says; 0 never.
    public var restartUnresponsiveAfter = 0

    public init(command: [String]) { self.command = command }

    /// The bounds of the numbers, as the config and the protocol take them.
    public static let restartMaxRange = 1...3600
    public static let restartsPerMinuteRange = 1...1000
    public static let stopRange = 0.1...300.0
    public static let restartUnresponsiveRange = 1...3600
    /// The most arguments a command has, and the most bytes an argument or value holds.
    public static let maximumArguments = 1024
    public static let maximumArgumentBytes = 65536

    /// Whether `name` may name a client: 1–64 letters, digits, `-`, `_`, `.`.
    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.".unicodeScalars.contains($0))
            }
    }

    /// Whether `name` may name an environment variable: a letter or `_`, then letters,
    /// digits and `_`, at most 256 bytes.
    public static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 256 else { return false }
        let word = { (c: Unicode.Scalar) in c.isASCII && (c.properties.isAlphabetic || c == "_") }
        return word(first) && name.unicodeScalars.allSatisfy { word($0) || ("0"..."9").contains($0) }
    }

    /// Whether `text` can be an argument or a variable's value: no NUL, at most
    /// `maximumArgumentBytes`.
    public static func isArgument(_ text: String) -> Bool {
        text.utf8.count <= maximumArgumentBytes && !text.utf8.contains(0)
    }

    /// Whether `command` can be run: 1…`maximumArguments` arguments, each one an argument,
    /// the program not empty.
    public static func isCommand(_ command: [String]) -> Bool {
        (1...maximumArguments).contains(command.count) && !command[0].isEmpty && command.allSatisfy(isArgument)
    }
}

extension Command {
    /// Decodes the commands of launched clients; nil when `name` is none of them.
    static func decodeClient(_ name: String, _ r: Fields) throws(ProtocolError) -> Command? {
        switch name {
        case "client.start":
            try r.only(["name", "command", "env", "directory", "restart", "restartMaxSeconds", "restartsPerMinute", "stopSeconds", "restartUnresponsiveAfter"])
            let client = try r.clientName()
            guard r.object["command"] != nil else {
                if let extra = r.object.keys.sorted().first(where: { !["id", "cmd", "name"].contains($0) }) {
                    throw ProtocolError(.invalidValue, "client.start: '\(extra)' goes with \"command\"; a configured client is started by its name alone")
                }
                return .clientStart(name: client, program: nil)
            }
            return .clientStart(name: client, program: try ClientProgram(r))
        case "client.stop":
            try r.only(["name"])
            return .clientStop(name: try r.clientName())
        default:
            return nil
        }
    }
}

extension ClientProgram {
    /// Decodes `client.start`'s program fields.
    init(_ r: Fields) throws(ProtocolError) {
        let shape = "client.start: \"command\" is the program and its arguments, such as [\"mpv\", \"/srv/loop.mp4\"]"
        guard let command = try r.strings("command") else { throw ProtocolError(.wrongType, shape) }
        guard !command.isEmpty else { throw ProtocolError(.invalidValue, "client.start: \"command\" is empty; give at least the program, such as [\"foot\"]") }
        guard Self.isCommand(command) else {
            throw ProtocolError(
                .invalidValue,
                "client.start: \"command\" needs a program name first and at most \(Self.maximumArguments) arguments of at most \(Self.maximumArgumentBytes) bytes without NUL"
            )
        }
        self.init(command: command)
        if let env = r.object["env"] {
            guard let table = env.object else {
                throw ProtocolError(.wrongType, "client.start: \"env\" is an object of names and strings, such as {\"LANG\": \"C.UTF-8\"}")
            }
            for (key, value) in table {
                guard Self.isVariableName(key) else {
                    throw ProtocolError(.invalidValue, "client.start: '\(key)' is not a variable name (a letter or '_', then letters, digits and '_')")
                }
                guard let text = value.string, Self.isArgument(text) else {
                    throw ProtocolError(.wrongType, "client.start: \"env\".\(key) is a string without NUL, not \(value.kindName)")
                }
                environment[key] = text
            }
        }
        if let directory = try r.string("directory") {
            guard directory.hasPrefix("/") || directory.isEmpty, Self.isArgument(directory) else {
                throw ProtocolError(.invalidValue, "client.start: \"directory\" is an absolute path such as \"/srv/kiosk\", got '\(directory)'")
            }
            self.directory = directory
        }
        if let name = try r.string("restart") {
            guard let policy = Restart(rawValue: name) else {
                throw ProtocolError(.invalidValue, "client.start: \"restart\" is one of never, on-failure, always, not '\(name)'")
            }
            restart = policy
        }
        restartMaxSeconds = try r.wholeNumber("restartMaxSeconds", in: Self.restartMaxRange) ?? restartMaxSeconds
        restartsPerMinute = try r.wholeNumber("restartsPerMinute", in: Self.restartsPerMinuteRange) ?? restartsPerMinute
        if let stop = try r.number("stopSeconds") {
            guard Self.stopRange.contains(stop) else { throw ProtocolError(.invalidValue, "client.start: \"stopSeconds\" must be within 0.1…300, got \(stop)") }
            stopSeconds = stop
        }
        if let seconds = try r.number("restartUnresponsiveAfter") {
            guard seconds == 0 || (seconds == seconds.rounded() && Self.restartUnresponsiveRange.contains(Int(seconds))) else {
                throw ProtocolError(
                    .invalidValue, "client.start: \"restartUnresponsiveAfter\" is whole seconds within 1…3600, or 0 to leave it running, got \(seconds)")
            }
            restartUnresponsiveAfter = Int(seconds)
        }
    }
}

extension Fields {
    /// `"name"`: a client's name.
    func clientName() throws(ProtocolError) -> String {
        let name = try requiredString("name")
        guard ClientProgram.isName(name) else {
            throw ProtocolError(.invalidValue, "\(command): '\(name)' is not a client name: 1–64 letters, digits, '-', '_' or '.'")
        }
        return name
    }

    /// A whole number within `range`, or nil when absent.
    func wholeNumber(_ key: String, in range: ClosedRange<Int>) throws(ProtocolError) -> Int? {
        guard let n = try number(key) else { return nil }
        guard n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            throw ProtocolError(.invalidValue, "\(command): \"\(key)\" is a whole number within \(range.lowerBound)…\(range.upperBound), got \(n)")
        }
        return Int(n)
    }
}
