import Glibc

/// A failed system call: what was tried on which path, and what the user can do.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The errno the call failed with, when it was one.
    public let code: Int32?

    public init(_ message: String, code: Int32? = nil) {
        self.message = message
        self.code = code
    }

    /// An error for `code` (errno by default) after `operation` on `path`: "PATH: cannot
    /// OPERATION: REASON — ADVICE".
    public static func errno(_ operation: String, _ path: String, _ code: Int32 = Glibc.errno, advice: String = "") -> SystemError {
        let reason = String(cString: strerror(code))
        return SystemError("\(path): cannot \(operation): \(reason)\(advice.isEmpty ? "" : " — " + advice)", code: code)
    }

    public var description: String { message }
}

/// Runs a system call, again while it fails with EINTR; returns its result.
@inline(__always)
public func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result >= 0 || Glibc.errno != EINTR { return result }
    }
}
