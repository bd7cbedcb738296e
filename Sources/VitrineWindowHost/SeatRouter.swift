import Logging
import VitrineCore
import VitrineInput
import VitrineWayland

/// The input the hit test gives a `surface` layer, sent to that layer's client through
/// the Wayland seat: points mapped through the layer's transform into the layer, then
/// from its bounds onto the window (its geometry) at the window's scale. A touch stays
/// with the surface it went down on; keys go to the surface last touched or clicked, read
/// through the configured keymap, which clients get as theirs. Windows of either kind are
/// told when the keys come and go (`focus`), and raised as the pointer comes onto them or a
/// touch goes down (`raise`: X11 picks the window under a point by its own stacking).
final class SeatRouter {
    private let scene: Scene
    private weak var server: WaylandServer?
    /// The window each surface layer shows.
    private unowned let surfaces: SurfaceRenderer
    /// The keymap's state (for the modifiers clients are told); nil when it does not compile.
    private let keyboard: Keyboard?
    /// The layer each touch on a surface went down on.
    private var touchLayers: [Int: String] = [:]
    /// Buttons whose press dismissed a popup grab: their release is not delivered either.
    private var swallowedButtons: Set<UInt32> = []
    /// The window keys go to (last touched or clicked).
    private weak var focused: (any HostedWindow)?
    /// The window the pointer was last over.
    private weak var pointerWindow: (any HostedWindow)?
    /// Where the pointer last was (the output's pixels) and on which screen; nil until it moves.
    private var pointer: (point: Point, placement: InputPlacement)?
    /// While buttons pressed on a window are held: its layer, and the buttons. The surface
    /// they were pressed on keeps the pointer until the last is released (wl_pointer's
    /// implicit grab), wherever it moves.
    private var pointerGrab: (layer: String, buttons: Set<UInt32>)?

    init(scene: Scene, surfaces: SurfaceRenderer, server: WaylandServer, keymap: InputSettings.Keymap, logger: Logger) {
        self.scene = scene
        self.surfaces = surfaces
        self.server = server
        do {
            let keyboard = try Keyboard(keymap: keymap)
            self.keyboard = keyboard
            if let text = keyboard.keymapText { server.setKeymap(text) }
        } catch {
            logger.warning("Wayland seat: the keymap does not compile (\(error.message)); clients get no keys")
            keyboard = nil
        }
    }

    /// Passes `event` (its time the kernel's) on to the client under it, the scene read at
    /// media time `time` on the screen `placement` says.
    func handle(_ event: InputEvent, at time: Double, on placement: InputPlacement) {
        guard let server else { return }
        defer { server.flush() }
        let milliseconds = UInt32(truncatingIfNeeded: Int64((event.time * 1000).rounded()))
        switch event {
        case .key(let key):
            guard let keyboard, key.keycode != 0, !key.isRepeat else { return }
            _ = keyboard.key(key.keycode, pressed: key.pressed, time: key.time)
            server.key(key.keycode, pressed: key.pressed, time: milliseconds, modifiers: keyboard.serializedModifiers)
        case .touch(let touch):
            switch touch.phase {
            case .down:
                let hit = window(at: touch.point, time: time, on: placement)
                if server.pressDismissesPopups(on: hit?.picture, x: hit?.x ?? 0, y: hit?.y ?? 0) { return }
                guard let hit else { return }
                touchLayers[touch.id] = hit.layer
                focus(hit.window)
                hit.window.raise()
                server.touchDown(touch.id, on: hit.picture, x: hit.x, y: hit.y, time: milliseconds)
            case .motion:
                guard let layer = touchLayers[touch.id], let hit = mapped(touch.point, into: layer, time: time, on: placement) else { return }
                server.touchMotion(touch.id, x: hit.x, y: hit.y, time: milliseconds)
            case .up, .cancel:
                guard touchLayers.removeValue(forKey: touch.id) != nil else { return }
                server.touchUp(touch.id, time: milliseconds)
            }
        case .pointer(let pointer):
            self.pointer = (pointer.point, placement)
            let hit = window(at: pointer.point, time: time, on: placement)
            let moved = pointer.kind == .motion
            if let grab = pointerGrab, let held = mapped(pointer.point, into: grab.layer, time: time, on: placement) {
                server.pointerGrabbed(x: held.x, y: held.y, time: milliseconds, unlessUnchanged: !moved)
            } else {
                pointerGrab = nil
                pointerMoved(onto: hit, time: milliseconds, unlessUnchanged: !moved)
            }
            switch pointer.kind {
            case .motion:
                break
            case .button(let code, let pressed):
                if pressed, server.pressDismissesPopups(on: hit?.picture, x: hit?.x ?? 0, y: hit?.y ?? 0) {
                    swallowedButtons.insert(code)
                    return
                }
                if !pressed, swallowedButtons.remove(code) != nil { return }
                if pressed, pointerGrab == nil, let hit { focus(hit.window) }
                server.pointerButton(code, pressed: pressed, time: milliseconds)
                if pressed {
                    if pointerGrab != nil { pointerGrab?.buttons.insert(code) } else if let hit { pointerGrab = (hit.layer, [code]) }
                } else if pointerGrab?.buttons.remove(code) != nil, pointerGrab?.buttons.isEmpty == true {
                    // Released: the surface under the pointer now has it.
                    pointerGrab = nil
                    pointerMoved(onto: hit, time: milliseconds, unlessUnchanged: true)
                }
            case .axis(let dx, let dy):
                server.pointerAxis(dx: dx, dy: dy, time: milliseconds)
            }
        }
    }

    /// The pointer is on `hit` (or on no window): the window is raised as the pointer comes
    /// onto it, and hears enter, leave or motion.
    /// A button or scroll where the pointer already is (`unlessUnchanged`) sends no motion.
    private func pointerMoved(onto hit: Hit?, time milliseconds: UInt32, unlessUnchanged: Bool = false) {
        if let hit, hit.window !== pointerWindow { hit.window.raise() }
        pointerWindow = hit?.window
        server?.pointer(on: hit?.picture, x: hit?.x ?? 0, y: hit?.y ?? 0, time: milliseconds, unlessUnchanged: unlessUnchanged)
    }

    /// The scene changed under a pointer that stayed put (a window moved, resized,
    /// appeared or went): the windows hear enter, leave or motion as if it had moved, the
    /// scene read at media time `time`; nothing when the pointer is where it was on the
    /// same surface. `flush` sends the events at once (not within a client's request,
    /// whose dispatch sends them after it).
    func refreshPointer(at time: Double, flush: Bool) {
        guard let server, let (point, placement) = pointer, pointerGrab == nil else { return }
        let hit = window(at: point, time: time, on: placement)
        server.pointer(on: hit?.picture, x: hit?.x ?? 0, y: hit?.y ?? 0, time: WindowHost.milliseconds(), unlessUnchanged: true)
        if flush { server.flush() }
    }

    /// A key (evdev's code) of the daemon's own keyboard: as a device's key, through the keymap.
    func key(_ code: UInt32, pressed: Bool) {
        guard let server, let keyboard, code != 0 else { return }
        let time = Double(WindowHost.milliseconds()) / 1000
        _ = keyboard.key(code, pressed: pressed, time: time)
        server.key(code, pressed: pressed, time: WindowHost.milliseconds(), modifiers: keyboard.serializedModifiers)
        server.flush()
    }

    /// Keys go to `window` from now on (unless it takes none: a layer surface without
    /// keyboard interactivity): the window that had them is told it lost them.
    func focus(_ window: any HostedWindow) {
        guard window.takesKeyboardFocus else { return }
        if let holder = focused as? LayerSurface, holder !== window, holder.holdsKeyboardExclusively { return }
        if focused !== window {
            focused?.focus(false)
            focused = window
            window.focus(true)
        }
        server?.focusKeyboard(on: window.picture)
    }

    /// `window` (a layer surface whose keyboard interactivity became none) gives the keys up.
    func unfocus(_ window: any HostedWindow) {
        guard focused === window else { return }
        window.focus(false)
        focused = nil
        server?.focusKeyboard(on: nil)
    }

    /// `window` is going: it has neither the keys nor the pointer any more.
    func forget(_ window: any HostedWindow) {
        if focused === window { focused = nil }
        if pointerWindow === window { pointerWindow = nil }
    }

    /// A place in a window: its layer, its picture and the point in its surface coordinates.
    private struct Hit {
        let window: any HostedWindow
        let picture: WindowPicture
        let layer: String
        let x: Double, y: Double
    }

    /// The window under `point` (the output's pixels), with its layer and the point in the
    /// window's surface coordinates.
    private func window(at point: Point, time: Double, on placement: InputPlacement) -> Hit? {
        guard let hit = scene.hitTest(placement.rootPoint(point), root: placement.root, at: time) else { return nil }
        return mapped(point, into: hit.layer, time: time, on: placement)
    }

    /// `point` (the output's pixels) in the surface coordinates of the window `layer` shows.
    private func mapped(_ point: Point, into layer: String, time: Double, on placement: InputPlacement) -> Hit? {
        guard let window = surfaces.assignments[layer], window.isMapped, let picture = window.picture, let rect = picture.windowRect,
            let local = scene.convert(placement.rootPoint(point), fromRoot: placement.root, to: layer, at: time),
            let bounds = try? scene.presentationValue("bounds", of: layer, at: time).rect, bounds.size.width > 0, bounds.size.height > 0
        else { return nil }
        let x = Double(rect.x) + (local.x - bounds.origin.x) * Double(rect.width) / bounds.size.width
        let y = Double(rect.y) + (local.y - bounds.origin.y) * Double(rect.height) / bounds.size.height
        return Hit(window: window, picture: picture, layer: layer, x: Self.snapped(x), y: Self.snapped(y))
    }

    /// `value`, or the whole number it misses by a rounding error of the transforms: a
    /// client that truncates (Xwayland's touches) hears the pixel meant.
    private static func snapped(_ value: Double) -> Double {
        let whole = value.rounded()
        return abs(value - whole) < 1e-6 ? whole : value
    }
}
