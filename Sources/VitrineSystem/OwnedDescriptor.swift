import Glibc
import SystemPackage

/// A file descriptor with one owner, closed exactly once: by `close()` when its owner is
/// done with it (a connection that ends), else when the owner lets go of it (`deinit`);
/// never by Swift once `release()` handed it to a C library that closes it itself.
///
/// swift-system's `FileDescriptor` is a plain value that someone must remember to close;
/// this is what a loop, a connection or a device keeps instead, so that every way out (an
/// error half-way through an init, a client that goes away) closes the descriptor. It is a
/// class so that it can sit in arrays and be captured, and still close once.
///
/// ```swift
/// let socket = OwnedDescriptor(try valueOrErrno { Glibc.socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) })
/// try loop.watch(socket.rawValue, for: .readable) { … }
/// loop.unwatch(socket.rawValue)
/// socket.close()  // or when the last reference goes
/// ```
public final class OwnedDescriptor {
    /// The descriptor's number, for system calls; -1 once closed or released.
    public private(set) var rawValue: CInt

    /// Takes ownership of `rawValue`, an open descriptor.
    public init(_ rawValue: CInt) { self.rawValue = rawValue }

    /// Takes ownership of `descriptor`, an open descriptor.
    public convenience init(_ descriptor: FileDescriptor) { self.init(descriptor.rawValue) }

    /// The descriptor as swift-system's value, for its calls (still owned here).
    public var descriptor: FileDescriptor { FileDescriptor(rawValue: rawValue) }

    /// Whether it is still open here.
    public var isOpen: Bool { rawValue >= 0 }

    /// Closes the descriptor now; nothing when it is closed already.
    public func close() {
        guard rawValue >= 0 else { return }
        _ = Glibc.close(rawValue)
        rawValue = -1
    }

    /// Gives up ownership: the caller (or the C library it passes the number to) closes it.
    public func release() -> CInt {
        defer { rawValue = -1 }
        return rawValue
    }

    deinit { close() }
}
