import VitrineCore
import VitrineRaster

/// Where a window's surfaces are: its root surface (with its subsurfaces), the part of it
/// that is the window, and the surfaces drawn over it. An xdg toplevel (popups over it) and
/// an X11 window's surface (override-redirect windows over it) lay themselves out so.
protocol PictureLayout: AnyObject {
    /// The surface at the root of the window.
    var root: SurfaceObject? { get }
    /// The part of the root surface that is the window (xdg's window geometry, without
    /// shadows), in its coordinates; nil: all of it.
    var geometry: PixelRect? { get }
    /// The surfaces shown over the root's tree, bottom first, each with its origin in the
    /// root surface's coordinates (mapped popups, override-redirect windows).
    var overlays: [(surface: SurfaceObject, x: Int, y: Int)] { get }
    /// Surfaces of the window not shown now: their commits' feedback is discarded.
    var hiddenSurfaces: [SurfaceObject] { get }
    /// Where keys go within the window.
    var keyboardSurface: SurfaceObject? { get }
}

/// What a `surface` layer draws of a window and where in it input goes: the window's
/// surfaces in drawing order, where they changed since a given version (`serial`), their
/// frame callbacks and presentation feedback.
///
/// Window coordinates are the root surface's; `windowRect` is the part of them the layer
/// shows, stretched over its bounds. A picture's versions come from the server's one
/// counter, so that a window whose picture is replaced (an X11 window mapped again) never
/// shows an old version as current.
public final class WindowPicture {
    private unowned let server: WaylandServer
    private unowned let layout: any PictureLayout
    /// Increases with every change of the picture (the server's counter: unique among
    /// pictures).
    public private(set) var serial = 0
    /// What changed at each recent serial, in window coordinates; nil where all of it did.
    private var history: [(serial: Int, rects: [PixelRect]?)] = []
    /// The window rectangle and each surface's place (window coordinates, drawing order)
    /// when the damage was last taken.
    private var drawn: (window: PixelRect?, frames: [(surface: ObjectIdentifier, frame: PixelRect)]) = (nil, [])

    init(server: WaylandServer, layout: any PictureLayout) {
        self.server = server
        self.layout = layout
        server.pictures[ObjectIdentifier(self)] = self
    }

    /// The window is gone: the server stops counting the picture among its windows'.
    func retire() {
        isRetired = true
        server.pictures[ObjectIdentifier(self)] = nil
    }

    /// Its window is gone (its layout may be freed): a picture still held elsewhere (the
    /// pictures shown in a frame not yet presented) waits for nothing and sends nothing.
    private var isRetired = false

    /// The part of the window's surfaces that is the window, in window coordinates; nil
    /// while the root has no buffer. As xdg-shell defines it: the geometry set, cut to the
    /// bounds of the root surface and its subsurfaces; those bounds where none was set.
    public var windowRect: PixelRect? {
        guard let root = layout.root, let size = root.size else { return nil }
        var whole = PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        func add(_ surface: SurfaceObject, _ x: Int, _ y: Int) {
            for child in surface.children {
                guard let sub = child.surface, let size = sub.size else { continue }
                whole = whole.union(PixelRect(x: x + child.x, y: y + child.y, width: size.width, height: size.height))
                add(sub, x + child.x, y + child.y)
            }
        }
        add(root, 0, 0)
        return (layout.geometry ?? whole).intersection(whole)
    }

    /// Where the window changed after `old` (a `serial`), in window coordinates; nil when
    /// all of it may have (or that serial is too old to tell).
    public func damage(since old: Int) -> [PixelRect]? {
        guard old >= 0, let first = history.first, first.serial <= old + 1 else { return nil }
        var rects: [PixelRect] = []
        for entry in history where entry.serial > old {
            guard let more = entry.rects else { return nil }
            rects += more
        }
        return rects
    }

    /// Whether every pixel of `windowRect` is opaque: the root surface's buffer is XRGB
    /// (everything else is drawn over it).
    public var isOpaque: Bool { layout.root?.buffer?.isOpaque ?? false }

    /// Whether frame callbacks wait for a frame.
    public var awaitsFrame: Bool {
        guard !isRetired else { return false }
        return layout.root?.awaitsFrame == true || layout.overlays.contains { $0.surface.awaitsFrame }
    }

    /// The client whose surfaces these are.
    var client: OpaquePointer? { layout.root?.client }

    /// Where keys go within the window.
    var keyboardSurface: SurfaceObject? { layout.keyboardSurface }

    // MARK: Changes

    /// The window appeared (or its root was replaced): all of it is new.
    func replaced() {
        _ = takeDamage()
        note(nil)
    }

    /// A surface of the window changed: its damage is taken and counted.
    func changed() { note(takeDamage()) }

    /// The window stopped showing.
    func cleared() {
        drawn = (nil, [])
        note(nil)
    }

    private func note(_ rects: [PixelRect]?) {
        serial = server.nextPictureSerial()
        history.append((serial, rects))
        if history.count > 8 { history.removeFirst(history.count - 8) }
    }

    /// Where the window changed since the damage was last taken, in window coordinates cut
    /// to `windowRect`: each surface's committed damage where the surface is, and the old
    /// and new places of the surfaces that moved, changed size, changed order, appeared or
    /// went; nil (all of it) when the window rectangle changed. Clears the surfaces' damage.
    private func takeDamage() -> [PixelRect]? {
        let stack = stack()
        var rects: [PixelRect] = []
        var frames: [(surface: ObjectIdentifier, frame: PixelRect)] = []
        for (surface, x, y) in stack {
            rects += surface.damage.map { $0.offsetBy(dx: x, dy: y) }
            surface.damage.removeAll()
            if let size = surface.size { frames.append((ObjectIdentifier(surface), PixelRect(x: x, y: y, width: size.width, height: size.height))) }
        }
        let window = windowRect
        defer { drawn = (window, frames) }
        guard let window, window == drawn.window else { return nil }
        let old = Dictionary(drawn.frames.map { ($0.surface, $0.frame) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(frames.map { ($0.surface, $0.frame) }, uniquingKeysWith: { first, _ in first })
        for (surface, frame) in new where old[surface] != frame { rects += [frame] + (old[surface].map { [$0] } ?? []) }
        for (surface, frame) in old where new[surface] == nil { rects.append(frame) }
        // Two surfaces that changed order change where they overlap.
        let oldIndex = Dictionary(drawn.frames.enumerated().map { ($1.surface, $0) }, uniquingKeysWith: { first, _ in first })
        let kept = frames.map(\.surface).filter { old[$0] != nil }
        guard kept.count <= 64 else { return nil }
        for (i, lower) in kept.enumerated() {
            for upper in kept[(i + 1)...] where oldIndex[lower]! > oldIndex[upper]! {
                rects += [old[lower]!.intersection(old[upper]!), new[lower]!.intersection(new[upper]!)]
            }
        }
        return rects.map { $0.intersection(window) }.filter { !$0.isEmpty }
    }

    // MARK: Surfaces

    /// The window's surfaces in drawing order, each with its origin in window coordinates:
    /// the root with its subsurfaces under and over it, then the overlays with theirs.
    func stack() -> [(surface: SurfaceObject, x: Int, y: Int)] {
        guard let root = layout.root, root.buffer != nil else { return [] }
        var list: [(surface: SurfaceObject, x: Int, y: Int)] = []
        func add(_ surface: SurfaceObject, _ x: Int, _ y: Int) {
            for (index, child) in surface.children.enumerated() {
                if index == surface.childrenBelow { list.append((surface, x, y)) }
                if let sub = child.surface, sub.buffer != nil { add(sub, x + child.x, y + child.y) }
            }
            if surface.children.count <= surface.childrenBelow { list.append((surface, x, y)) }
        }
        add(root, 0, 0)
        for (surface, x, y) in layout.overlays where surface.buffer != nil { add(surface, x, y) }
        return list
    }

    /// The topmost surface of the window that takes input at (`x`, `y`) of the root
    /// surface, with the point in that surface's coordinates.
    func surface(at x: Double, _ y: Double) -> (surface: SurfaceObject, x: Double, y: Double)? {
        for (surface, sx, sy) in stack().reversed() {
            let (lx, ly) = (x - Double(sx), y - Double(sy))
            if surface.takesInput(at: lx, ly) { return (surface, lx, ly) }
        }
        return nil
    }

    /// Sends `done` to the frame callbacks of the window's surfaces.
    func sendFrameDone(_ milliseconds: UInt32) {
        guard !isRetired else { return }
        layout.root?.sendFrameDone(milliseconds)
        for overlay in layout.overlays { overlay.surface.sendFrameDone(milliseconds) }
    }

    // MARK: Presentation feedback

    /// Commits of its surfaces wait for `wp_presentation_feedback`.
    public var awaitsPresentation: Bool {
        layout.root?.awaitsPresentation == true || layout.overlays.contains { $0.surface.awaitsPresentation }
    }

    /// The feedback of the commits a frame about to be shown holds (its surfaces' committed
    /// state), which the caller answers when that frame is on screen; the feedback of its
    /// surfaces not shown is discarded.
    public func takeFeedback() -> [PresentationFeedback] {
        var taken = layout.root?.takeFeedback() ?? []
        for overlay in layout.overlays { taken += overlay.surface.takeFeedback() }
        for hidden in layout.hiddenSurfaces { hidden.discardFeedback(pending: false) }
        return taken
    }

    /// Its commits are shown nowhere: their feedback is discarded.
    public func discardFeedback() {
        layout.root?.discardFeedback(pending: false)
        for overlay in layout.overlays { overlay.surface.discardFeedback(pending: false) }
        for hidden in layout.hiddenSurfaces { hidden.discardFeedback(pending: false) }
    }
}
