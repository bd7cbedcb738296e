import VitrineCore

/// An error as the wire carries it: a stable code and a message that says what was wrong
/// and what to do.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The protocol's error codes. Core errors keep their own codes.
    public enum Code: String, Sendable {
        case malformedJSON = "malformed_json"
        case notAnObject = "not_an_object"
        case missingField = "missing_field"
        case unknownField = "unknown_field"
        case wrongType = "wrong_type"
        case invalidValue = "invalid_value"
        case unknownCommand = "unknown_command"
        case invalidUTF8 = "invalid_utf8"
        case lineTooLong = "line_too_long"
        case limitExceeded = "limit_exceeded"
        case idleTimeout = "idle_timeout"
        case shuttingDown = "shutting_down"
        case pathNotAllowed = "path_not_allowed"
        case contentFailed = "content_failed"
        case notManualClock = "not_manual_clock"
        case unknownOutput = "unknown_output"
        case internalError = "internal_error"
        case invalidConfig = "invalid_config"
        case unknownClient = "unknown_client"
        case startFailed = "start_failed"
        case notAllowed = "not_allowed"
    }

    public let code: String
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code.rawValue
        self.message = message
    }

    public init(_ error: CoreError) {
        code = error.code
        message = error.message
    }

    /// A core error's code with a message of its own.
    public init(_ error: CoreError, message: String) {
        code = error.code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

/// Foundation on Linux has a type of this name too; inside this module the name means
/// the model's transform.
typealias AffineTransform = VitrineCore.AffineTransform
