import Glibc
import Logging
import VitrineCore
import VitrineInput
import VitrineOutput
import VitrineOutputSet
import VitrineProtocol
import VitrineRaster
import VitrineSceneHost
import VitrineSystem
import VitrineWayland

/// What input says of someone being there, before any event is delivered: the pointer's
/// cursor (`[input] cursor`, `cursor_hide_after`), idleness (`idle_after`: `input.idle`,
/// `input.active` and their bindings), and the touch that wakes a blanked screen, which
/// is swallowed.
///
/// It sees every event first (`admit`). Times are media time. At most two loop timers,
/// each armed once for its deadline and re-armed when it fires early (input came since):
/// nothing is armed per event, and nothing at all for what the settings turn off. With the
/// manual clock there are no timers: `clockMoved` checks the deadlines.
final class InputPresence {
    private let settings: InputSettings
    private let sceneHost: SceneHost
    private let outputSet: OutputSet
    private let loop: EventLoop?
    private let logger: Logger
    /// Queues an event for scripts (sent after the reply, as the router's are).
    var post: (Event) -> Void = { _ in }
    /// Fires the bindings of `idle` or `active` at a media time.
    var fire: (BindingSpec.Trigger, Double) -> Void = { _, _ in }
    /// Called after a timer changed something: its events are due (the coordinator's `flush`).
    var changed: () -> Void = {}

    /// The cursor drawn over the primary output; nil with `cursor = "hidden"`.
    let cursor: CursorOverlay?
    /// Vitrine's own cursor picture and its hotspot.
    private let arrow: (image: Surface, hotspot: (x: Int, y: Int))?
    /// What the client under the pointer set (`wl_pointer.set_cursor`).
    private var clientCursor = PointerCursor.standard
    private var lastMotion = -Double.infinity
    private var hideTimer: UInt64?

    /// When input last came, whether the daemon is idle, and the idle timer.
    private var lastInput: Double
    private(set) var isIdle = false
    private var idleTimer: UInt64?

    /// The touches and buttons whose whole press is swallowed: they woke a blanked output.
    private var swallowedTouches = Set<Int>()
    private var swallowedButtons = Set<UInt32>()
    /// Outputs a touch woke while their schedule says off: blanked again when idle.
    private var wokenByTouch: [ObjectIdentifier] = []

    init(settings: InputSettings, sceneHost: SceneHost, outputSet: OutputSet, loop: EventLoop?, logger: Logger, pointer: Point) {
        self.settings = settings
        self.sceneHost = sceneHost
        self.outputSet = outputSet
        self.loop = loop
        self.logger = logger
        lastInput = sceneHost.now
        // In a window (`--backend x11`, `wayland`) the display server draws its own pointer.
        if settings.cursor == .hidden || (settings.cursor == .auto && outputSet.primary.backend is WindowOutput) {
            (cursor, arrow) = (nil, nil)
        } else {
            let overlay = CursorOverlay()
            let arrow = CursorOverlay.arrow()
            overlay.move(to: pointer)
            if settings.cursor == .always { overlay.show(arrow.image, hotspot: arrow.hotspot) }
            outputSet.primary.pipeline.cursor = overlay
            (cursor, self.arrow) = (overlay, arrow)
        }
        armIdleTimer()
    }

    private var realtime: Bool { sceneHost.clock.mode == .realtime && loop != nil }

    /// Takes `event` before it is delivered; false when it must not be: a touch or click
    /// that woke a blanked output, with the rest of its press.
    func admit(_ event: InputEvent) -> Bool {
        let now = sceneHost.now
        noteInput(at: now)
        switch event {
        case .touch(let touch):
            if swallowedTouches.contains(touch.id) {
                if touch.phase == .up || touch.phase == .cancel { swallowedTouches.remove(touch.id) }
                return false
            }
            if touch.phase == .down, wake() {
                swallowedTouches.insert(touch.id)
                return false
            }
            if touch.phase == .down, settings.cursor == .auto { hideCursor() }
        case .pointer(let pointer):
            if case .button(let code, let pressed) = pointer.kind {
                if swallowedButtons.contains(code) {
                    if !pressed { swallowedButtons.remove(code) }
                    return false
                }
                if pressed, wake() {
                    swallowedButtons.insert(code)
                    return false
                }
            }
            pointerMoved(to: pointer.point, at: now)
        case .key:
            break
        }
        return true
    }

    /// The manual clock moved: what is due by now happens.
    func clockMoved() {
        guard !realtime else { return }
        let now = sceneHost.now
        if settings.idleAfter > 0, !isIdle, now >= lastInput + settings.idleAfter { becomeIdle() }
        if settings.cursor == .auto, now >= lastMotion + settings.cursorHideAfter { hideCursor() }
    }

    // MARK: Cursor

    private func pointerMoved(to point: Point, at now: Double) {
        guard let cursor else { return }
        if outputSet.primary.pipeline.cursor !== cursor { follow(cursor) }
        cursor.move(to: point)
        if settings.cursor == .auto {
            lastMotion = now
            if !cursor.isVisible { showCursor() }
            armHideTimer()
        }
        if cursor.needsFrame { outputSet.requestFrame() }
    }

    /// The cursor the client under the pointer asks for from now on (in place of the
    /// arrow), drawn at once if the cursor is shown.
    func use(_ cursor: PointerCursor) {
        clientCursor = cursor
        guard let overlay = self.cursor, overlay.isVisible else { return }
        showCursor()
        if overlay.needsFrame { outputSet.requestFrame() }
    }

    /// Shows the picture in force: the client's, or the arrow.
    private func showCursor() {
        guard let cursor, let arrow else { return }
        switch clientCursor {
        case .standard: cursor.show(arrow.image, hotspot: arrow.hotspot)
        case .hidden: cursor.show(nil, hotspot: (0, 0))
        case .picture(let image, let hotspot): cursor.show(image, hotspot: hotspot)
        }
    }

    /// Draws `cursor` on the primary output, another since the last motion (the one before
    /// was unplugged), and on no other.
    private func follow(_ cursor: CursorOverlay) {
        for head in outputSet.heads where head.pipeline.cursor === cursor { head.pipeline.cursor = nil }
        outputSet.primary.pipeline.cursor = cursor
        outputSet.primary.pipeline.invalidate()
    }

    private func hideCursor() {
        guard let cursor, cursor.isVisible else { return }
        cursor.hide()
        outputSet.requestFrame()
    }

    private func armHideTimer() {
        guard realtime, hideTimer == nil else { return }
        hideTimer = loop?.schedule(after: max(0, lastMotion + settings.cursorHideAfter - sceneHost.now)) { [unowned self] in
            hideTimer = nil
            if sceneHost.now + 1e-3 >= lastMotion + settings.cursorHideAfter { hideCursor() } else { armHideTimer() }
        }
    }

    // MARK: Idle

    private func noteInput(at now: Double) {
        let since = idleSince
        lastInput = now
        guard settings.idleAfter > 0, isIdle else { return }
        isIdle = false
        post(.inputActive(time: now, idleSeconds: now - since))
        fire(.active, now)
        armIdleTimer()
    }

    /// When the daemon went idle: `idle_after` past the last input.
    private var idleSince: Double { lastInput + settings.idleAfter }

    private func armIdleTimer() {
        guard settings.idleAfter > 0, realtime, idleTimer == nil else { return }
        idleTimer = loop?.schedule(after: max(0, lastInput + settings.idleAfter - sceneHost.now)) { [unowned self] in
            idleTimer = nil
            if sceneHost.now + 1e-3 >= lastInput + settings.idleAfter {
                becomeIdle()
                changed()
            } else {
                armIdleTimer()
            }
        }
    }

    private func becomeIdle() {
        isIdle = true
        let time = lastInput + settings.idleAfter
        post(.inputIdle(time: time, since: lastInput))
        fire(.idle, min(time, sceneHost.now))
        blankWokenOutputs()
    }

    // MARK: Waking

    /// Wakes the primary output (the one input is mapped to) if it is blanked; false when
    /// it was not.
    private func wake() -> Bool {
        let head = outputSet.primary
        guard !head.powered else { return false }
        do {
            try outputSet.setPower(head, on: true, reason: .touch)
            if head.entry?.schedule != nil { wokenByTouch.append(ObjectIdentifier(head)) }
        } catch {
            logger.warning("input: \(error.message)")
        }
        return true
    }

    /// Blanks again the outputs a touch woke whose schedule still says off.
    private func blankWokenOutputs() {
        guard !wokenByTouch.isEmpty else { return }
        let woken = wokenByTouch
        wokenByTouch = []
        tzset()
        let now = Int(time(nil))
        for head in outputSet.heads where woken.contains(ObjectIdentifier(head)) {
            guard let plan = head.entry?.schedule, !plan.isOn(at: now) else { continue }
            try? outputSet.setPower(head, on: false, reason: .schedule)
        }
    }
}
