import Glibc
import SystemPackage

/// A failed system call: what was tried on which path, and what the user can do.
///
/// With swift-system's `Errno` and `FileDescriptor` this is the package's one layer over
/// errno: other modules throw, log and compare `Errno`s, never reading C's `errno` or
/// calling `strerror` themselves.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The errno the call failed with, when it was one.
    public let code: Errno?
    /// What went wrong without the path it went wrong on ("no such file"), for a message
    /// that names the file its own way ("cannot read the configuration: no such file");
    /// `message` when the error was made without one.
    public let reason: String

    /// - Parameters:
    ///   - message: The whole message, naming the path.
    ///   - code: The errno, when a call failed with one.
    ///   - reason: `message` without the path, when a caller may want it so.
    public init(_ message: String, code: Errno? = nil, reason: String? = nil) {
        self.message = message
        self.code = code
        self.reason = reason ?? message
    }

    /// An error for `code` (the last call's by default) after `operation` on `path`:
    /// "PATH: cannot OPERATION: REASON — ADVICE".
    public static func errno(_ operation: String, _ path: String, _ code: Errno = .last, advice: String = "") -> SystemError {
        SystemError("\(path): cannot \(operation): \(code)\(advice.isEmpty ? "" : " — " + advice)", code: code)
    }

    public var description: String { message }

    /// The words for errno `code` ("Permission denied"), the last call's by default: for a
    /// message about a call that is not on a path, or one a C library made.
    public static func reason(errno code: CInt = Glibc.errno) -> String { Errno(rawValue: code).description }
}

extension Errno {
    /// The errno of the last system call that failed on this thread (C's `errno`).
    public static var last: Errno { Errno(rawValue: Glibc.errno) }

    /// What swift-system threw: it throws only `Errno`s (anything else is EIO).
    public init(thrown error: any Error) { self = error as? Errno ?? .ioError }

    /// Whether a non-blocking call found nothing to do (EAGAIN, EWOULDBLOCK).
    public var meansTryAgain: Bool { self == .resourceTemporarilyUnavailable || self == .wouldBlock }
}

/// Runs a system call, again while it fails with EINTR; returns its result.
@inline(__always)
public func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result >= 0 || Glibc.errno != EINTR { return result }
    }
}

/// Runs a system call that returns -1 and sets errno when it fails, again while it fails
/// with EINTR; returns its result, or throws its errno.
@inline(__always) @discardableResult
public func valueOrErrno<T: BinaryInteger>(_ call: () -> T) throws(Errno) -> T {
    let result = retryingOnInterrupt(call)
    guard result >= 0 else { throw Errno.last }
    return result
}
