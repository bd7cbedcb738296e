import CWaylandServer
import VitrineRaster

/// What the window host hears of layer surfaces, on the loop.
public protocol LayerShellDelegate: AnyObject {
    /// A layer surface asked for its first configure, applied new settings, showed, changed
    /// its picture or stopped showing: the surfaces of its output are to be arranged again.
    func layerSurfaceChanged(_ surface: LayerSurface)
    /// A layer surface was destroyed (or its client went).
    func layerSurfaceGone(_ surface: LayerSurface)
}

/// `zwlr_layer_shell_v1` (version 4): gives surfaces the layer surface role. Offered only to
/// the clients `WaylandServer.mayUseInputMethods` allows.
final class LayerShellObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.layerShellV1["zwlr_layer_shell_v1"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwlrLayerShellV1Request(rawValue: opcode) {
        case .get_layer_surface:
            guard let surface = ServerObject.of(a[1].resource, as: SurfaceObject.self) else { return }
            guard let layer = LayerSurface.Layer(rawValue: a[3].u) else {
                postError(ZwlrLayerShellV1Error.invalid_layer, "layer \(a[3].u) is none of background (0), bottom, top, overlay (3)")
                return
            }
            guard surface.role == nil else {
                postError(ZwlrLayerShellV1Error.role, "wl_surface@\(wl_resource_get_id(surface.resource)) already has a role")
                return
            }
            guard !surface.hasBuffer else {
                postError(ZwlrLayerShellV1Error.already_constructed, "wl_surface@\(wl_resource_get_id(surface.resource)) has a buffer attached or committed")
                return
            }
            let output = ServerObject.of(a[2].resource, as: OutputObject.self)?.name
            guard
                let made = LayerSurface(
                    server: server, client: client, version: version, id: a[0].n, surface: surface, layer: layer, output: output,
                    namespace: String(a[4].text.prefix(256)))
            else { return }
            surface.role = .layer(made)
        case .destroy: destroy()
        case nil: break
        }
    }
}

/// A client's layer surface (`zwlr_layer_surface_v1`): a panel, a wallpaper, an on-screen
/// keyboard, shown on an output above or below the windows the scene places, where its
/// anchors, size and margins put it. The window host arranges it (`arrange`) and shows it
/// in a surface layer of its own; it is a `HostedWindow` for the seat's input.
public final class LayerSurface: ServerObject, HostedWindow {
    /// `zwlr_layer_shell_v1.layer`, bottom-most first.
    public enum Layer: UInt32, Sendable, Comparable {
        case background, bottom, top, overlay
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// `zwlr_layer_surface_v1.anchor`.
    public struct Anchor: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let top = Anchor(rawValue: 1)
        public static let bottom = Anchor(rawValue: 2)
        public static let left = Anchor(rawValue: 4)
        public static let right = Anchor(rawValue: 8)
    }

    /// `zwlr_layer_surface_v1.keyboard_interactivity`.
    public enum KeyboardInteractivity: UInt32, Sendable {
        case none, exclusive, onDemand
    }

    /// The double-buffered state, as committed.
    public struct Settings: Sendable, Equatable {
        public var layer: Layer
        public var anchor: Anchor = []
        /// The size asked for; 0: the arrangement's, between the anchors.
        public var width = 0, height = 0
        public var exclusiveZone = 0
        public var margin = (top: 0, right: 0, bottom: 0, left: 0)
        public var keyboard = KeyboardInteractivity.none

        public static func == (a: Self, b: Self) -> Bool {
            a.layer == b.layer && a.anchor == b.anchor && a.width == b.width && a.height == b.height && a.exclusiveZone == b.exclusiveZone
                && a.margin == b.margin && a.keyboard == b.keyboard
        }
    }

    public internal(set) var id = 0
    public var kind: WindowKind { .layer }
    public var title: String { namespace }
    public var appID: String { namespace }
    public var instance: String? { nil }
    public let pid: Int
    /// The client's namespace (its purpose: "wvkbd", "panel").
    public let namespace: String
    /// The output it asked for (`wl_output`'s name); nil: the compositor's choice.
    public let output: String?
    /// The settings of the last commit.
    public private(set) var settings: Settings
    private var pending: Settings
    public private(set) var isMapped = false
    public private(set) var isAlive = true
    public var isResponsive: Bool { true }
    /// Whether the client asked for its first configure (its initial commit) and was not
    /// unmapped since.
    public private(set) var wantsConfigure = false
    /// The size last sent in a configure; nil before the first.
    private var sentSize: (width: Int, height: Int)?
    private var lastSerial: UInt32 = 0
    private var acked = false
    /// `closed` was sent: nothing more is shown.
    private var closed = false
    private(set) weak var surface: SurfaceObject?
    private var windowPicture: WindowPicture!

    init?(
        server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, surface: SurfaceObject, layer: Layer, output: String?,
        namespace: String
    ) {
        self.surface = surface
        self.output = output
        self.namespace = namespace
        pid = WaylandServer.pid(of: client)
        settings = Settings(layer: layer)
        pending = settings
        super.init(server: server, client: client, interface: ServerInterfaceTable.layerShellV1["zwlr_layer_surface_v1"], version: version, id: id)
        self.id = server.nextWindowID()
        windowPicture = WindowPicture(server: server, layout: self)
    }

    public var picture: WindowPicture? { windowPicture }

    /// The surface's size in its coordinates; nil without a buffer.
    public var size: (width: Int, height: Int)? { surface?.size }

    /// Whether touching or clicking it gives it the keys (keyboard interactivity other than none).
    public var takesKeyboardFocus: Bool { settings.keyboard != .none }

    /// Whether it takes the keys as it shows and keeps them (mapped, exclusive interactivity,
    /// on the top or overlay layer).
    public var holdsKeyboardExclusively: Bool { isMapped && settings.keyboard == .exclusive && settings.layer >= .top }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwlrLayerSurfaceV1Request(rawValue: opcode) {
        case .set_size:
            guard a[0].u <= 1 << 15, a[1].u <= 1 << 15 else {
                postError(ZwlrLayerSurfaceV1Error.invalid_size, "size \(a[0].u)×\(a[1].u) is over 32768")
                return
            }
            (pending.width, pending.height) = (Int(a[0].u), Int(a[1].u))
        case .set_anchor:
            guard a[0].u <= 15 else {
                postError(ZwlrLayerSurfaceV1Error.invalid_anchor, "anchor \(a[0].u) is not a set of top (1), bottom (2), left (4), right (8)")
                return
            }
            pending.anchor = Anchor(rawValue: a[0].u)
        case .set_exclusive_zone: pending.exclusiveZone = Int(a[0].i)
        case .set_margin: pending.margin = (Int(a[0].i), Int(a[1].i), Int(a[2].i), Int(a[3].i))
        case .set_keyboard_interactivity:
            guard let value = KeyboardInteractivity(rawValue: a[0].u), version >= 4 || value != .onDemand else {
                postError(ZwlrLayerSurfaceV1Error.invalid_keyboard_interactivity, "keyboard interactivity \(a[0].u) is none of none, exclusive, on_demand")
                return
            }
            pending.keyboard = value
        case .get_popup: break
        case .ack_configure:
            guard a[0].u > 0, a[0].u <= lastSerial else {
                postError(ZwlrLayerSurfaceV1Error.invalid_surface_state, "ack_configure with serial \(a[0].u), which was never sent")
                return
            }
            acked = true
        case .destroy: destroy()
        case .set_layer:
            guard let layer = Layer(rawValue: a[0].u) else {
                postError(ZwlrLayerShellV1Error.invalid_layer, "layer \(a[0].u) is none of background (0), bottom, top, overlay (3)")
                return
            }
            pending.layer = layer
        case nil: break
        }
    }

    override func destroyed() {
        isAlive = false
        unmap()
        if case .layer(let me) = surface?.role, me === self { surface?.role = nil }
        windowPicture.retire()
        server.layerShellDelegate?.layerSurfaceGone(self)
    }

    func surfaceGone() { unmap() }

    /// Its surface committed: the settings apply; the first commit asks for a configure, a
    /// buffer after an acknowledged configure shows it, a null buffer unmaps it.
    func committed(changed: Bool) {
        guard !closed else { return }
        if pending.width == 0, !pending.anchor.isSuperset(of: [.left, .right]) {
            postError(ZwlrLayerSurfaceV1Error.invalid_size, "width 0 needs the surface anchored to both the left and the right edges")
            return
        }
        if pending.height == 0, !pending.anchor.isSuperset(of: [.top, .bottom]) {
            postError(ZwlrLayerSurfaceV1Error.invalid_size, "height 0 needs the surface anchored to both the top and the bottom edges")
            return
        }
        let settingsChanged = settings != pending
        settings = pending
        guard let surface else { return }
        if surface.buffer == nil {
            unmap()
            if !wantsConfigure {
                askConfigure()
            } else if settingsChanged {
                server.layerShellDelegate?.layerSurfaceChanged(self)
            }
            return
        }
        // (WLCS 1.5's helpers attach a buffer before the first configure: see acceptsUnacknowledgedBuffers)
        if !wantsConfigure, server.acceptsUnacknowledgedBuffers {
            askConfigure()
            acked = true
        }
        guard acked else {
            postError(ZwlrLayerSurfaceV1Error.invalid_surface_state, "a buffer was committed before the first configure was acknowledged")
            return
        }
        if !isMapped {
            isMapped = true
            windowPicture.replaced()
            server.layerShellDelegate?.layerSurfaceChanged(self)
        } else if changed || settingsChanged {
            windowPicture.changed()
            server.layerShellDelegate?.layerSurfaceChanged(self)
        } else if surface.awaitsFrame {
            server.layerShellDelegate?.layerSurfaceChanged(self)
        }
    }

    /// The initial commit: the window host arranges the surface, which sends its configure.
    private func askConfigure() {
        wantsConfigure = true
        server.layerShellDelegate?.layerSurfaceChanged(self)
        if sentSize == nil { arrange(width: settings.width, height: settings.height) }
    }

    private func unmap() {
        guard isMapped else { return }
        isMapped = false
        windowPicture.cleared()
        // As after get_layer_surface: a commit without a buffer asks for a configure again.
        (wantsConfigure, sentSize, acked) = (false, nil, false)
        if isAlive { server.layerShellDelegate?.layerSurfaceChanged(self) }
    }

    /// Sends a configure of `width` × `height` unless that was the last one sent (the
    /// arrangement's size: the size asked for, or the space between the anchors).
    public func arrange(width: Int, height: Int) {
        guard isAlive, !closed, wantsConfigure, sentSize.map({ $0 != (width, height) }) ?? true else { return }
        sentSize = (width, height)
        lastSerial &+= 1
        post(
            ZwlrLayerSurfaceV1Event.configure.rawValue,
            [wl_argument(u: lastSerial), wl_argument(u: UInt32(max(0, width))), wl_argument(u: UInt32(max(0, height)))])
        server.flush()
    }

    /// A layer surface's size is its arrangement's (`arrange`), not its layer's.
    public func configure(width: Int, height: Int) {}

    /// `closed`: it will not be shown again (its output went).
    public func close() {
        guard isAlive, !closed else { return }
        closed = true
        unmap()
        post(ZwlrLayerSurfaceV1Event.closed.rawValue)
        server.flush()
    }

    public func focus(_ focused: Bool) {}
    public func raise() {}
}

extension LayerSurface: PictureLayout {
    var root: SurfaceObject? { surface }
    var geometry: PixelRect? { nil }
    var overlays: [(surface: SurfaceObject, x: Int, y: Int)] { [] }
    var hiddenSurfaces: [SurfaceObject] { [] }
    var keyboardSurface: SurfaceObject? { surface }
}

extension SurfaceObject {
    /// The layer surface this surface is (part of).
    var layerSurface: LayerSurface? {
        switch role {
        case .layer(let layer): layer
        case .subsurface(let sub): sub.parent?.layerSurface
        default: nil
        }
    }
}
