import Logging
import VitrineConfig
import VitrineCore
import VitrineInput
import VitrineKeyboard
import VitrineOutputSet
import VitrineProtocol
import VitrineSceneHost
import VitrineSystem
import VitrineWindowHost

/// Vitrine's own on-screen keyboard (`[osk]`): layers on top of the primary output's
/// root that slide in on `osk.show` or when a client's text field takes the keys
/// (`textInput`) and out on `osk.hide` or when it lets them go, take the touches and clicks that go down on them before
/// windows and bindings do, and say what was typed (`typed`).
///
/// While hidden its layers are gone from the scene and it takes no event: the frame loop
/// and the input path pay one `isVisible` test. Timers (repeats, long presses, removing
/// the layers once slid out) are armed on the loop only while due; with the manual clock
/// `clockMoved` runs them.
///
/// Where the text goes is the owner's business: `typed` gets each `Typed` with its media
/// time. The daemon sends it to scripts (`osk.text`, `osk.key`) and as key events to the
/// window that has the keys (`KeyTyping`); a client with text-input-v3 enabled is to get
/// `.text` through `commit_string` instead, when the Wayland server offers it.
final class ScreenKeyboard {
    private let settings: Configuration.ScreenKeyboard
    private let layouts: [KeyboardLayout]
    private let timing: KeyboardTiming
    private let sceneHost: SceneHost
    private let outputSet: OutputSet
    private let loop: EventLoop?
    private let logger: Logger
    /// Receives what the keyboard typed, with its media time.
    var typed: (Typed, Double) -> Void = { _, _ in }
    /// Called after a timer typed or changed the layers (the coordinator's `flush`).
    var changed: () -> Void = {}
    private var view: KeyboardView
    private var model: KeyboardModel?
    private var layoutIndex = 0
    private enum Phase { case hidden, shown, hiding(until: Double) }
    private var phase = Phase.hidden
    /// The window whose text field showed the keyboard (`textInput`), while it has the keys,
    /// and whether the window was kept clear of the keyboard for its field's cursor (a
    /// client may tell the cursor only in a commit after the one that enables its field).
    private var textSurface: (id: Int, placed: Bool)?
    /// The layer moved or shortened to keep a text field in sight, while shown.
    private var avoidance: KeyboardAvoidance?
    /// The loop timer armed for the next deadline, and that deadline.
    private var timer: (ticket: UInt64, deadline: Double)?
    /// The touch id a held pointer button plays.
    private static let pointerTouch = Int.min

    /// The keyboard of `settings`, its layouts read from xkeyboard-config now.
    ///
    /// - Throws: `SystemError` naming a layout that cannot be read.
    init(
        settings: Configuration.ScreenKeyboard, input: InputSettings, sceneHost: SceneHost, outputSet: OutputSet, loop: EventLoop?, logger: Logger
    ) throws(SystemError) {
        self.settings = settings
        do { layouts = try settings.layouts.map { name throws(KeyboardError) in try KeyboardLayout(named: name) } } catch {
            throw SystemError("osk.layouts: \(error.message)")
        }
        var timing = KeyboardTiming()
        timing.repeatDelay = Double(input.repeatDelayMilliseconds) / 1000
        timing.repeatInterval = input.repeatRate > 0 ? 1 / Double(input.repeatRate) : 0
        timing.longPress = input.longPressSeconds
        self.timing = timing
        self.sceneHost = sceneHost
        self.outputSet = outputSet
        self.loop = loop
        self.logger = logger
        view = KeyboardView(theme: settings.theme)
    }

    /// Whether its layers are in the scene (shown, or sliding in or out).
    var isVisible: Bool { if case .hidden = phase { false } else { true } }

    private var root: String { view.prefix }
    private var output: Size {
        let mode = outputSet.primary.backend.mode
        return Size(width: Double(mode.width), height: Double(mode.height))
    }

    // MARK: Commands

    /// Runs `osk.show`, `osk.hide` and `osk.layout`; the reply says what is shown.
    func execute(_ command: Command) throws(ProtocolError) -> JSON {
        forgetRemovedLayers()
        switch command {
        case .oskShow(let layout, let field):
            if let layout {
                layoutIndex = try index(of: layout)
                model?.select(layout: layoutIndex)
            }
            try show(keeping: field.map { Rect(origin: outputSet.primary.rootPoint($0.origin), size: $0.size) })
        case .oskHide:
            try hide()
        case .oskLayout(let layout):
            layoutIndex = try layout.map { name throws(ProtocolError) in try index(of: name) } ?? (layoutIndex + 1) % layouts.count
            if let model, isVisible {
                model.select(layout: layoutIndex)
                try redraw()
            }
        default:
            throw ProtocolError(.internalError, "\(command.name) is not a command of the screen keyboard")
        }
        return description
    }

    /// What `osk.*` replies: whether it is shown and its layout.
    var description: JSON {
        let state: String =
            switch phase {
            case .hidden: "hidden"
            case .shown: "shown"
            case .hiding: "hiding"
            }
        return .object(["state": .string(state), "layout": .string(layouts[layoutIndex].name), "layouts": .array(layouts.map { .string($0.name) })])
    }

    private func index(of name: String) throws(ProtocolError) -> Int {
        guard let index = layouts.firstIndex(where: { $0.name == name }) else {
            throw ProtocolError(.invalidValue, "the screen keyboard has no layout '\(name)'; [osk] layouts has \(layouts.map(\.name).joined(separator: ", "))")
        }
        return index
    }

    /// A client's text field took the keys (`focus`: text-input-v3 enabled on the focused
    /// window), or none has them (nil): the keyboard slides in, on the `numeric` layout for
    /// a field of digits, numbers, a phone number or a PIN when `[osk] layouts` has it (back
    /// on a text layout for other fields), or slides out. The field is kept in sight by its
    /// cursor; a client that tells none (Chromium) has its field taken to be 40 pixels tall
    /// around `pressed`, where the touch or click that focused it went down (the root's
    /// coordinates). Another field of the window already served keeps it up as it is: the
    /// window stays where the first cursor the window told put it.
    func textInput(_ focus: TextInputFocus?, pressed: Point?) throws(ProtocolError) {
        forgetRemovedLayers()
        guard let focus else {
            textSurface = nil
            return try hide()
        }
        let surface = focus.surface
        let digits = [.digits, .number, .phone, .pin].contains(focus.state.purpose)
        let cursor = focus.cursor ?? pressed.map { Rect(x: $0.x - 1, y: $0.y - 20, width: 2, height: 40) }
        let numeric = layouts.firstIndex { $0.name == "numeric" }
        let wanted =
            digits ? numeric : layoutIndex == numeric ? layouts.firstIndex { $0.name != "numeric" } : nil
        let relayout = wanted.map { $0 != layoutIndex } ?? false
        if let wanted, relayout {
            layoutIndex = wanted
            model?.select(layout: wanted)
        }
        if case .shown = phase, textSurface?.id == surface, textSurface?.placed == true || cursor == nil {
            if relayout { try redraw() }
            return
        }
        textSurface = (surface, cursor != nil)
        try show(keeping: cursor)
    }

    /// Its layers were removed by someone else (`scene.reset`), or left by a restored
    /// journal: it is hidden, and such layers go.
    func forgetRemovedLayers() {
        let present = sceneHost.scene.contains(root)
        if model == nil, present {
            do { try sceneHost.commit(view.remove(), owner: nil, at: sceneHost.now) } catch {
                logger.warning("osk: cannot remove stale layers: \(error.message)")
            }
        } else if model != nil, !present {
            (phase, model, avoidance) = (.hidden, nil, nil)
        }
    }

    /// Slides the keyboard in (its layers made first when hidden). A text `field` (the
    /// root's coordinates, as laid out without the keyboard: a layer moved for an earlier
    /// field is put back first) the keyboard would cover is kept in sight as `[osk] avoid`
    /// says: the text-input seam (a client's cursor rectangle) and `osk.show`'s `field` give it.
    func show(keeping field: Rect? = nil) throws(ProtocolError) {
        let now = sceneHost.now
        if case .shown = phase, sceneHost.scene.contains(root), field == nil {
            try redraw()
            return
        }
        if !sceneHost.scene.contains(root) {
            let size = Size(width: output.width, height: settings.theme.height(onOutputOfHeight: output.height))
            let model = KeyboardModel(layouts: layouts, size: size, spacing: settings.theme.spacing, timing: timing)
            model.select(layout: layoutIndex)
            self.model = model
            try sceneHost.commit(view.build(model, under: outputSet.root, output: output), owner: nil, at: now)
        }
        guard let model else { return }
        try redraw()
        phase = .shown
        if let previous = avoidance {
            // Put back first: the next field's layer may be the same one.
            var back = Transaction(animationDuration: settings.theme.duration, timingFunction: settings.theme.timing, isAnimated: true)
            previous.restore(in: sceneHost.scene, into: &back)
            try sceneHost.commit(back, owner: nil, at: now)
            avoidance = nil
        }
        var tx = view.slide(shown: true, size: model.geometry.size, output: output)
        avoidance = field.flatMap { field in
            let top = outputSet.primary.rootPoint(Point(x: 0, y: output.height - model.geometry.size.height)).y
            return KeyboardAvoidance.make(
                keeping: field, above: top, margin: settings.theme.spacing, mode: settings.avoid, in: sceneHost.scene, root: outputSet.root,
                skipping: root, at: now, into: &tx)
        }
        try sceneHost.commit(tx, owner: nil, at: now)
        arm()
    }

    /// Slides the keyboard out; its layers go once it is out of sight.
    func hide() throws(ProtocolError) {
        guard case .shown = phase, let model else { return }
        model.reset()
        try redraw()
        let now = sceneHost.now
        var tx = view.slide(shown: false, size: model.geometry.size, output: output)
        avoidance?.restore(in: sceneHost.scene, into: &tx)
        avoidance = nil
        try sceneHost.commit(tx, owner: nil, at: now)
        phase = .hiding(until: now + settings.theme.duration)
        arm()
    }

    // MARK: Input

    /// Takes `event` (at media time `time`) when it is the keyboard's: a touch or a left
    /// click that goes down on a key, and what that touch or button does until it lifts.
    /// Returns whether it took it.
    func take(_ event: InputEvent, at time: Double) -> Bool {
        guard case .shown = phase, let model else { return false }
        if !sceneHost.scene.contains(root) {
            forgetRemovedLayers()
            return false
        }
        var typed: [Typed] = []
        switch event {
        case .touch(let touch):
            switch touch.phase {
            case .down:
                guard let point = local(touch.point, time: time) else { return false }
                let result = model.down(touch.id, at: point, time: time)
                guard result.taken else { return false }
                typed = result.typed
            case .motion:
                guard model.owns(touch.id) else { return false }
                if let point = local(touch.point, time: time) { model.moved(touch.id, to: point) }
            case .up, .cancel:
                guard model.owns(touch.id) else { return false }
                typed = model.up(touch.id, cancelled: touch.phase == .cancel)
            }
        case .pointer(let pointer):
            let owned = model.owns(Self.pointerTouch)
            switch pointer.kind {
            case .button(0x110, true):
                guard !owned, let point = local(pointer.point, time: time) else { return owned }
                let result = model.down(Self.pointerTouch, at: point, time: time)
                guard result.taken else { return false }
                typed = result.typed
            case .button(0x110, false):
                guard owned else { return false }
                typed = model.up(Self.pointerTouch)
            case .motion:
                guard owned else { return false }
                if let point = local(pointer.point, time: time) { model.moved(Self.pointerTouch, to: point) }
            default:
                return owned
            }
        case .key:
            return false
        }
        settle(typed, at: time)
        return true
    }

    /// The manual clock moved (or a timer fired): repeats and long presses due, and the
    /// layers removed once slid out.
    func advance(to time: Double) {
        if case .hiding(let until) = phase, until <= time {
            phase = .hidden
            model = nil
            if sceneHost.scene.contains(root) {
                do { try sceneHost.commit(view.remove(), owner: nil, at: time) } catch { logger.warning("osk: cannot remove its layers: \(error.message)") }
            }
            return
        }
        guard case .shown = phase else { return }
        forgetRemovedLayers()
        guard let model else { return }
        settle(model.advance(to: time), at: time)
    }

    /// Says what was typed and shows what changed in the next frame.
    private func settle(_ typed: [Typed], at time: Double) {
        if let model { layoutIndex = model.layoutIndex }
        do { try redraw() } catch { logger.warning("osk: cannot draw its keys: \(error.message)") }
        for item in typed { self.typed(item, time) }
        arm()
    }

    private func redraw() throws(ProtocolError) {
        guard let model, let tx = view.update(model) else { return }
        try sceneHost.commit(tx, owner: nil, at: sceneHost.now)
    }

    /// `point` (the output's pixels) in the keyboard's coordinates.
    private func local(_ point: Point, time: Double) -> Point? {
        let head = outputSet.primary
        return sceneHost.scene.convert(head.rootPoint(point), fromRoot: head.root, to: root, at: time)
    }

    /// The loop timer for the next deadline (real-time clock only).
    private func arm() {
        guard let loop, sceneHost.clock.mode == .realtime else { return }
        let deadline: Double? =
            switch phase {
            case .hidden: nil
            case .hiding(let until): until
            case .shown: model?.nextDeadline
            }
        if let armed = timer {
            if armed.deadline == deadline { return }
            loop.cancel(armed.ticket)
            timer = nil
        }
        guard let deadline else { return }
        let ticket = loop.schedule(after: max(0, deadline - sceneHost.now)) { [unowned self] in
            timer = nil
            advance(to: max(sceneHost.now, deadline))
            arm()
            changed()
        }
        timer = (ticket, deadline)
    }
}
