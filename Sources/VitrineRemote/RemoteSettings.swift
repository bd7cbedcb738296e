import Glibc

/// `[remote]`: the VNC listeners that let an operator watch (and operate) the screens
/// from elsewhere. None by default.
public struct RemoteSettings: Sendable, Hashable {
    /// Where each VNC server listens, what it shows and who may connect.
    public var listeners: [Listener] = []

    /// No listener.
    public init() {}

    /// A listener's `output` that shows the wall: its outputs with viewports, where they lie
    /// on the canvas.
    public static let wall = "*"

    /// One VNC server.
    public struct Listener: Sendable, Hashable {
        /// Where it listens.
        public var address: Address
        /// The output (connector) it shows, or `RemoteSettings.wall`; nil: the primary
        /// output.
        public var output: String?
        /// Viewers see the screen and send no input.
        public var viewOnly = false
        /// The most updates a second sent to viewers: changes between them are gathered
        /// into the next.
        public var maxRate = 30
        /// The TLS certificate (PEM) for VeNCrypt; "" for none. With `key` and
        /// `passwordFile`, viewers authenticate.
        public var certificate = ""
        /// The certificate's private key (PEM).
        public var key = ""
        /// Lines `user:password[:view-only]` that may connect.
        public var passwordFile = ""
        /// User names and passwords are checked by PAM (service `pamService`) instead of a
        /// password file.
        public var pam = false
        /// The PAM service.
        public var pamService = "vitrine-vnc"
        /// PAM users who may only watch.
        public var viewOnlyUsers: [String] = []
        /// PAM users in this group (primary or supplementary) may only watch; "" for none.
        public var viewOnlyGroup = ""

        public init(address: Address) { self.address = address }

        /// Whether viewers authenticate (VeNCrypt, X.509 TLS and a user name and password).
        public var authenticates: Bool { !certificate.isEmpty }
    }

    /// A listening socket: TCP on a numeric address, or a Unix socket.
    public enum Address: Sendable, Hashable, CustomStringConvertible {
        case tcp(host: String, port: Int)
        case unix(path: String)

        /// "127.0.0.1:5900", "[::1]:5900" or an absolute path; nil for anything else.
        public init?(_ text: String) {
            if text.hasPrefix("/") {
                guard text.utf8.count <= 107 else { return nil }
                self = .unix(path: text)
                return
            }
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, host == "localhost" || Self.isNumeric(host) else { return nil }
            self = .tcp(host: host, port: port)
        }

        /// Whether only this machine can reach it: a Unix socket, or a loopback address.
        public var isLocal: Bool {
            switch self {
            case .unix: true
            case .tcp(let host, _): host == "localhost" || host == "::1" || host.hasPrefix("127.")
            }
        }

        public var description: String {
            switch self {
            case .unix(let path): path
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            }
        }

        private static func isNumeric(_ host: String) -> Bool {
            var v4 = in_addr(), v6 = in6_addr()
            return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
        }
    }
}
