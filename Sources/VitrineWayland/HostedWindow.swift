/// The protocol a hosted window's client speaks.
public enum WindowKind: String, Sendable {
    /// An `xdg_toplevel` of a Wayland client.
    case xdg
    /// An X11 window of a client of Xwayland, managed by the daemon's X window manager.
    case x11
    /// A layer shell surface (`zwlr_layer_surface_v1`: a panel, an on-screen keyboard).
    case layer
}

/// A window a `surface` layer can show, whatever protocol its client speaks: what the window
/// host places, sizes, focuses, closes and watches, and the picture the layer draws.
///
/// ```swift
/// func windowMapped(_ window: any HostedWindow) {
///     if window.appID == "chromium" { window.configure(width: 1280, height: 800) }
/// }
/// ```
///
/// An xdg toplevel (`Toplevel`) and an X11 window (VitrineXWayland's `X11Window`) are the
/// two kinds; the window host treats them alike and never asks which one it has, except
/// to describe it (`kind`, `instance`).
public protocol HostedWindow: AnyObject {
    /// Unique among every kind of window while the daemon runs (`WaylandServer.nextWindowID`):
    /// the `surface` of `surface.list`.
    var id: Int { get }
    /// The protocol its client speaks.
    var kind: WindowKind { get }
    /// The window's title (xdg's title; X11's `_NET_WM_NAME`, else `WM_NAME`).
    var title: String { get }
    /// xdg's app id; for an X11 window the class of its `WM_CLASS` ("XTerm").
    var appID: String { get }
    /// The instance of an X11 window's `WM_CLASS` ("xterm"); nil for an xdg toplevel.
    var instance: String? { get }
    /// The client's process (an X11 window's own client's, not Xwayland's); 0 when unknown.
    var pid: Int { get }
    /// Whether it shows a picture now.
    var isMapped: Bool { get }
    /// False once the client destroyed it (or went).
    var isAlive: Bool { get }
    /// False while its client leaves a ping unanswered.
    var isResponsive: Bool { get }
    /// What a layer draws of it and where in it input goes; nil while it has no surface.
    var picture: WindowPicture? { get }
    /// Whether a touch or click on it gives it the keys (false: a layer surface without
    /// keyboard interactivity, an on-screen keyboard).
    var takesKeyboardFocus: Bool { get }

    /// Asks the client for a `width` × `height` window, the size of the layer showing it
    /// (each new size once).
    func configure(width: Int, height: Int)
    /// Asks the client for a window of `width` × `height` output pixels on an output of
    /// `scale` (`[[outputs]] scale`): an xdg toplevel is told the scale and configured at
    /// the size divided by it; an X11 window, which knows no scale, at the size.
    func configure(width: Int, height: Int, scale: Double)
    /// Asks the client to close the window, as a close button would.
    func close()
    /// The keyboard focus came to the window (`true`) or left it.
    func focus(_ focused: Bool)
    /// Pointer or touch input is about to reach the window: where its protocol picks the
    /// window under a point by its own stacking (X11), it is put over the others.
    func raise()
}

extension HostedWindow {
    public var takesKeyboardFocus: Bool { true }
}

/// What the daemon hears of hosted windows, on its loop: from the Wayland server for xdg
/// toplevels, from the X window manager for X11 windows.
public protocol WindowDelegate: AnyObject {
    /// A window showed its first picture.
    func windowMapped(_ window: any HostedWindow)
    /// A window stopped showing (destroyed, a null buffer, unmapped, or its client gone).
    func windowUnmapped(_ window: any HostedWindow)
    /// A mapped window's picture changed (its picture's `damage` says where), its title or
    /// app id changed, or it asks for a frame callback.
    func windowChanged(_ window: any HostedWindow)
    /// The size a new window is first configured with (its layer's, in output pixels) and
    /// its output's scale, before it maps; nil lets the client choose.
    func initialSize(of window: any HostedWindow) -> (width: Int, height: Int, scale: Double)?
    /// A client's mapped `windows` stopped answering pings (`responsive` false: `seconds`
    /// without an answer) or answered again (after `seconds`).
    func windows(_ windows: [any HostedWindow], responsive: Bool, seconds: Double)
}

extension HostedWindow {
    public func configure(width: Int, height: Int, scale: Double) { configure(width: width, height: height) }
}
