/// A viewer connected to a VNC listener, from its handshake's end to its disconnection.
public struct RemoteSession: Sendable, Equatable {
    /// Unique in the daemon's life.
    public let id: Int
    /// The listener's address, as configured.
    public let listener: String
    /// The output the listener shows (`RemoteSettings.wall`: the wall).
    public let output: String
    /// Where the viewer connects from ("127.0.0.1:40122", "unix"), when known.
    public let peer: String
    /// The user name it authenticated with; "" on a listener without authentication.
    public let user: String
    /// It sees the screen and sends no input.
    public let viewOnly: Bool
    /// When it connected (CLOCK_REALTIME, seconds since 1970).
    public let since: Double
}

/// What a viewer does with its pointer and keyboard, its points in the root's space: the
/// pixels of the output its listener shows moved by the output's place on the wall's
/// canvas (none without a wall).
public enum RemoteInput: Sendable, Equatable {
    /// The pointer moved to (`x`, `y`).
    case motion(x: Int, y: Int)
    /// A button (its evdev code: `BTN_LEFT` 0x110, `BTN_RIGHT` 0x111, `BTN_MIDDLE` 0x112)
    /// went down or up at (`x`, `y`).
    case button(UInt32, pressed: Bool, x: Int, y: Int)
    /// The wheel turned: 15 per step, right and down positive.
    case scroll(dx: Double, dy: Double, x: Int, y: Int)
    /// A key went down or up, as an X11 keysym (`XK_a` 0x61, `XK_Return` 0xff0d).
    case key(keysym: UInt32, pressed: Bool)
}

/// What a VNC listener tells its owner, on the event loop.
public enum RemoteNotice: Sendable, Equatable {
    case connected(RemoteSession)
    case disconnected(RemoteSession)
    /// Input from a session that is not view-only, from a listener showing `output`.
    case input(RemoteInput, output: String, session: Int)
}
