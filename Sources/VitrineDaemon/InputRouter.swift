import Logging
import VitrineOutputSet
import VitrineCore
import VitrineInput
import VitrineProtocol
import VitrineSceneHost
import VitrineSystem
import VitrineWindowHost

/// Input from devices and from `input.inject`, made into events for scripts and into the
/// reactions of bindings, on the daemon's loop.
///
/// An event's kernel time becomes media time (the real-time clock runs on CLOCK_MONOTONIC;
/// with the manual clock an event happens at the time it is now). Touches and the
/// pointer's left button are hit-tested on the output's root layer at that time and go
/// through the `GestureRecognizer`; each gesture is an event (`layer.tap`, …) and fires the
/// bindings of its layer — or of the nearest ancestor with bindings for it — as one
/// transaction at the gesture's time, so the change is in the next frame. While a long
/// press is pending one loop timer is armed for it, otherwise none; motion events go to
/// scripts at most once a frame per touch (the latest). Nothing is computed for events
/// nobody subscribed to.
final class InputRouter {
    let sceneHost: SceneHost
    let outputSet: OutputSet
    private let subscribers: Subscribers
    private let loop: EventLoop?
    let logger: Logger
    /// The keymap injected key codes are read through.
    private let keymap: InputSettings.Keymap
    /// Called after a timer's gestures and motion have been handled: their events and
    /// changes are due (the coordinator's `flush`).
    let changed: () -> Void
    /// The screen keyboard, which takes the touches and clicks on its keys before windows do.
    weak var screenKeyboard: ScreenKeyboard?
    /// The window host, whose windows take the events over them first.
    weak var windows: WindowHost?
    /// The bindings in force.
    var bindings = BindingTable()
    /// The cursor, idleness and the waking touch: it sees every event first.
    private(set) var presence: InputPresence!
    /// Resets the scene or restarts a client for an `idle` or `active` binding (the
    /// coordinator's), before its commands are applied.
    var idleActions: (BindingSpec) -> Void = { _ in }
    /// Plays a binding's `playlist`.
    var playActions: (BindingSpec) -> Void = { _ in }
    let recognizer: GestureRecognizer
    /// The long-press timer: its ticket and the deadline (media time) it is armed for.
    private var longPressTimer: (ticket: UInt64, deadline: Double)?
    /// The timer that sends held motion, when some is held.
    private var motionTimer: UInt64?
    /// Events for scripts, sent when the coordinator flushes (after the reply to the
    /// request that caused them).
    private var outbox: [(event: Event, layer: String?)] = []
    /// The latest motion event not sent yet, and when a motion event was last sent, by
    /// touch id (`pointerKey` for the pointer).
    private var heldMotion: [Int: Event] = [:]
    private var motionSent: [Int: Double] = [:]
    private static let pointerKey = Int.min
    /// Touches down and where they were last, in the output's pixels.
    private(set) var touches: [Int: Point] = [:]
    /// Where the last touch or button went down that the screen keyboard did not take, in
    /// the root's coordinates: where a text field that took the keys was tapped.
    private(set) var lastPress: Point?
    /// Where the pointer is, in the output's pixels.
    private(set) var pointer: Point
    /// The media time of the last event: events never go back in time.
    private var lastTime = -Double.infinity
    /// The keymap injected key codes are read through, made when first needed.
    private var injectionKeyboard: Keyboard?
    /// Counters for `stats`.
    private var counts = (events: 0, gestures: 0, fired: 0, failed: 0)
    /// From an event's kernel time to the frame that shows its bindings' change, for `stats`.
    var latency = InputLatency()
    /// The kernel time of the event being handled, while its bindings' latency is measured.
    private var measuredTime: Double?
    /// What opening the devices gave, for `stats`: "opened", "not opened" (the headless
    /// output, `[input] enabled = false`), or why they could not be.
    var deviceStatus = "not opened"
    /// The most touches followed for `input.inject`'s checks.
    static let maximumTouches = 64

    /// Routes input on the primary output of `outputSet` through `sceneHost`'s scene to
    /// `subscribers`; timers (long presses, held motion) go on `loop`, none without one
    /// (the manual clock drives long presses then).
    init(
        settings: InputSettings, sceneHost: SceneHost, outputSet: OutputSet, subscribers: Subscribers, loop: EventLoop?, logger: Logger,
        changed: @escaping () -> Void
    ) {
        self.sceneHost = sceneHost
        self.outputSet = outputSet
        self.subscribers = subscribers
        self.loop = loop
        self.logger = logger
        self.changed = changed
        keymap = settings.keymap
        recognizer = GestureRecognizer(settings: settings)
        let size = outputSet.primary.backend.mode
        pointer = Point(x: Double(size.width) / 2, y: Double(size.height) / 2)
        recognizer.area = Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
        // On a wall, input may land on any of its screens (remote viewers of the wall).
        let primary = outputSet.primary
        if primary.viewport != nil {
            for head in outputSet.heads {
                guard let viewport = head.viewport else { continue }
                let rect = Rect(
                    x: Double(viewport.x) - primary.origin.x, y: Double(viewport.y) - primary.origin.y, width: Double(viewport.width),
                    height: Double(viewport.height))
                recognizer.area = recognizer.area?.union(rect)
            }
        }
        presence = InputPresence(settings: settings, sceneHost: sceneHost, outputSet: outputSet, loop: loop, logger: logger, pointer: pointer)
        presence.post = { [unowned self] event in post(event, layer: nil) }
        presence.fire = { [unowned self] trigger, time in
            let matching = bindings.isEmpty ? [] : bindings.matching(trigger)
            for entry in matching where entry.spec.resetsScene || entry.spec.restartsClient != nil { idleActions(entry.spec) }
            _ = fire(matching.filter { !$0.spec.transaction.commands.isEmpty || $0.spec.playlist != nil }, at: time, on: nil, what: trigger.rawValue)
        }
        presence.changed = changed
    }

    private func arm(_ seconds: Double, _ body: @escaping () -> Void) -> UInt64 {
        loop?.schedule(after: seconds, body) ?? 0
    }

    private func disarm(_ ticket: UInt64) {
        loop?.cancel(ticket)
    }

    /// One frame's time: motion goes out at most this often per touch.
    var framePeriod: Double {
        let rate = outputSet.primary.backend.mode.refreshRate
        return rate > 0 ? 1 / rate : 1.0 / 60
    }

    // MARK: Events in

    /// Handles one event from a device or `input.inject` (kernel time); returns the media
    /// time it happened at. Its events wait for `sendPending`. With the real-time clock,
    /// the latency of the bindings it fires is measured from its time when `measured`
    /// (a device's or an injected `time`).
    @discardableResult
    func handle(_ event: InputEvent, measured: Bool = true) -> Double {
        counts.events += 1
        guard presence.admit(event) else {
            if case .touch(let touch) = event { track(touch) }
            return sceneHost.now
        }
        measuredTime = measured && sceneHost.clock.mode == .realtime ? event.time : nil
        defer { measuredTime = nil }
        let time = mediaTime(ofKernelTime: event.time)
        if let screenKeyboard, screenKeyboard.isVisible, screenKeyboard.take(event, at: time) {
            if case .touch(let touch) = event { track(touch) } else if case .pointer(let motion) = event { pointer = motion.point }
            return time
        }
        if case .touch(let touch) = event, touch.phase == .down {
            lastPress = outputSet.primary.rootPoint(touch.point)
        } else if case .pointer(let motion) = event, case .button(_, pressed: true) = motion.kind {
            lastPress = outputSet.primary.rootPoint(motion.point)
        }
        windows?.handle(event, at: time, on: InputPlacement(root: outputSet.root, origin: outputSet.primary.origin))
        let event = event.at(time)
        switch event {
        case .key(let key):
            // (posted before the `binding.failed` its bindings may post)
            let index = outbox.count
            var transactions: [UInt64] = []
            if key.pressed, !key.isRepeat, bindings.hasKeyBindings {
                let matching = bindings.matching(key: key.keysym)
                if !matching.isEmpty { transactions = fire(matching, at: time, on: nil, what: "key \(key.keysym)") }
            }
            post(.inputKey(Self.event(of: key, transactions: transactions)), layer: nil, at: index)
        case .touch(let touch):
            track(touch)
            report(touch)
        case .pointer(let motion):
            pointer = motion.point
            report(motion)
        }
        let scene = sceneHost.scene, root = outputSet.root, head = outputSet.primary
        let gestures = recognizer.handle(
            event, hitTest: { p in scene.hitTest(head.rootPoint(p), root: root, at: time).map { ($0.layer, $0.point) } },
            convert: { p, layer in scene.convert(head.rootPoint(p), fromRoot: root, to: layer, at: time) },
            bounds: { layer in try? scene.presentationValue("bounds", of: layer, at: time).rect })
        for gesture in gestures { deliver(gesture) }
        scheduleLongPress()
        return time
    }

    /// The media time of an event stamped with CLOCK_MONOTONIC `seconds`: never later
    /// than now, nor earlier than the event before.
    private func mediaTime(ofKernelTime seconds: Double) -> Double {
        let now = sceneHost.now
        var time = sceneHost.clock.mediaTime(monotonic: seconds)
        if !time.isFinite || time > now { time = now }
        time = max(time, lastTime)
        lastTime = time
        return time
    }

    private func track(_ touch: TouchEvent) {
        switch touch.phase {
        case .down:
            if touches[touch.id] == nil, touches.count >= Self.maximumTouches, let any = touches.keys.min() { touches[any] = nil }
            touches[touch.id] = touch.point
        case .motion:
            if touches[touch.id] != nil { touches[touch.id] = touch.point }
        case .up, .cancel:
            touches[touch.id] = nil
        }
    }

    /// The long-press timer armed for the recognizer's next deadline, or none. With the
    /// manual clock there is none: the clock's moves fire long presses (`clockMoved`).
    private func scheduleLongPress() {
        let deadline = sceneHost.clock.mode == .realtime ? recognizer.nextDeadline : nil
        if let armed = longPressTimer {
            if armed.deadline == deadline { return }
            disarm(armed.ticket)
            longPressTimer = nil
        }
        guard let deadline else { return }
        let ticket = arm(max(0, deadline - sceneHost.now)) { [unowned self] in
            longPressTimer = nil
            // The loop's deadline and the media clock are one clock; a rounding error
            // must not leave the deadline unpassed.
            let now = max(sceneHost.now, deadline)
            for gesture in recognizer.advance(to: now) { deliver(gesture) }
            scheduleLongPress()
            changed()
        }
        longPressTimer = (ticket, deadline)
    }

    /// The manual clock moved: long presses due by now fire, held motion goes out.
    func clockMoved() {
        let now = sceneHost.now
        lastTime = min(lastTime, now)
        for gesture in recognizer.advance(to: now) { deliver(gesture) }
        releaseHeldMotion()
        presence.clockMoved()
    }

    // MARK: Events out

    /// Sends the events waiting to their subscribers (the coordinator's `flush`).
    func sendPending() {
        guard !outbox.isEmpty else { return }
        let pending = outbox
        outbox.removeAll(keepingCapacity: true)
        for entry in pending { subscribers.send(entry.event, layer: entry.layer, ancestry: ancestry) }
    }

    /// `layer` and its ancestors, nearest first.
    private func ancestry(of layer: String) -> [String] {
        var chain = [layer]
        while let parent = (try? sceneHost.scene.parent(of: chain.last!)) ?? nil { chain.append(parent) }
        return chain
    }

    /// Queues an event for its subscribers, at the end of the outbox or at `index`;
    /// `layer` is the one `layers` filters look at.
    private func post(_ event: Event, layer: String?, at index: Int? = nil) {
        outbox.insert((event, layer), at: index ?? outbox.count)
    }

    private static func event(of key: KeyEvent, transactions: [UInt64]) -> Event.Key {
        Event.Key(
            keysym: key.keysym, text: key.text, keycode: key.keycode, pressed: key.pressed, isRepeat: key.isRepeat, modifiers: key.modifiers,
            time: key.time, device: key.device.isEmpty ? nil : key.device, transactions: transactions)
    }

    /// `input.touch`, when anyone listens: the point, and the layer under it with the
    /// point in its coordinates.
    private func report(_ touch: TouchEvent) {
        if touch.phase != .motion { releaseHeldMotion(touch.id) }
        guard subscribers.wants(.inputTouch) else { return }
        let event = Event.inputTouch(
            place(touch.point, time: touch.time, device: touch.device), phase: Event.TouchPhase(rawValue: touch.phase.rawValue)!, touch: touch.id)
        if touch.phase == .motion {
            postMotion(event, key: touch.id, time: touch.time)
        } else {
            post(event, layer: nil)
            if touch.phase != .down { motionSent[touch.id] = nil }
        }
    }

    /// `input.pointer`, when anyone listens.
    private func report(_ pointer: PointerEvent) {
        if pointer.kind != .motion { releaseHeldMotion(Self.pointerKey) }
        guard subscribers.wants(.inputPointer) else { return }
        let place = place(pointer.point, time: pointer.time, device: pointer.device)
        switch pointer.kind {
        case .motion:
            postMotion(.inputPointer(place, action: .motion), key: Self.pointerKey, time: pointer.time)
        case .button(let code, let pressed):
            post(.inputPointer(place, action: .button(code, pressed: pressed)), layer: nil)
        case .axis(let dx, let dy):
            post(.inputPointer(place, action: .axis(dx: dx, dy: dy)), layer: nil)
        }
    }

    private func place(_ point: Point, time: Double, device: String) -> Event.InputPoint {
        let hit = sceneHost.scene.hitTest(outputSet.primary.rootPoint(point), root: outputSet.root, at: time)
        return Event.InputPoint(point: point, hit: hit.map { Event.Hit(layer: $0.layer, point: $0.point) }, time: time, device: device.isEmpty ? nil : device)
    }

    /// Sends a motion event now if none went out for its touch in this frame; else holds
    /// it (in place of one held before) until the frame is over.
    private func postMotion(_ event: Event, key: Int, time: Double) {
        let realtime = sceneHost.clock.mode == .realtime
        if let sent = motionSent[key], realtime ? time < sent + framePeriod : time <= sent {
            heldMotion[key] = event
            if realtime, motionTimer == nil {
                motionTimer = arm(max(0, sent + framePeriod - sceneHost.now)) { [unowned self] in
                    motionTimer = nil
                    releaseHeldMotion()
                    changed()
                }
            }
            return
        }
        motionSent[key] = time
        // What was held for this touch is older than this event: it goes unsent (the loop,
        // busy, may not have run the timer yet).
        if heldMotion.removeValue(forKey: key) != nil, heldMotion.isEmpty, let motionTimer {
            disarm(motionTimer)
            self.motionTimer = nil
        }
        post(event, layer: nil)
    }

    /// Sends the motion held for `key` (every key when nil).
    private func releaseHeldMotion(_ key: Int? = nil) {
        guard !heldMotion.isEmpty else { return }
        let keys = key.map { [$0] } ?? heldMotion.keys.sorted()
        for key in keys {
            guard let held = heldMotion.removeValue(forKey: key) else { continue }
            motionSent[key] = sceneHost.now
            post(held, layer: nil)
        }
        if heldMotion.isEmpty, let motionTimer {
            disarm(motionTimer)
            self.motionTimer = nil
        }
    }

    /// A gesture's event, and the bindings it fires.
    private func deliver(_ gesture: Gesture) {
        counts.gestures += 1
        // (posted before the `binding.failed` its bindings may post)
        let index = outbox.count
        let trigger: BindingSpec.Trigger?
        switch gesture {
        case .press: trigger = .press
        case .release, .cancel: trigger = .release
        case .tap: trigger = .tap
        case .longPress: trigger = .longPress
        case .dragBegan, .dragChanged, .dragEnded: trigger = nil
        }
        var transactions: [UInt64] = []
        if !bindings.isEmpty, let trigger { transactions = fire(trigger, on: gesture.layer, at: gesture.time) }
        let event = Self.event(of: gesture, transactions: transactions)
        if subscribers.wants(event.name) { post(event, layer: gesture.layer, at: index) }
    }

    /// A gesture as the event scripts get, with the transactions its bindings committed.
    static func event(of gesture: Gesture, transactions: [UInt64] = []) -> Event {
        let touch = Event.LayerTouch(layer: gesture.layer, touch: gesture.touch, time: gesture.time, transactions: transactions)
        switch gesture {
        case .press(_, let point, _, _): return .layerPress(touch, point: point)
        case .release(_, let point, let inside, _, _): return .layerRelease(touch, point: point, inside: inside)
        case .tap(_, let point, _, _): return .layerTap(touch, point: point)
        case .longPress(_, let point, _, _): return .layerLongPress(touch, point: point)
        case .dragBegan(_, let point, let translation, let velocity, _, _):
            return .layerDrag(touch, phase: .began, point: point, translation: translation, velocity: velocity)
        case .dragChanged(_, let point, let translation, let velocity, _, _):
            return .layerDrag(touch, phase: .changed, point: point, translation: translation, velocity: velocity)
        case .dragEnded(_, let point, let translation, let velocity, _, _):
            return .layerDrag(touch, phase: .ended, point: point, translation: translation, velocity: velocity)
        case .cancel: return .layerCancel(touch)
        }
    }

    // MARK: Bindings

    /// Fires the bindings for `trigger` of `layer`, or of its nearest ancestor that has
    /// some: a tap on a button's label fires the button's. Returns the transactions committed.
    private func fire(_ trigger: BindingSpec.Trigger, on layer: String, at time: Double) -> [UInt64] {
        var current: String? = layer
        while let id = current {
            if bindings.hasBindings(on: id) {
                let matching = bindings.matching(trigger, on: id)
                if !matching.isEmpty { return fire(matching, at: time, on: id, what: "\(trigger.rawValue) on '\(id)'") }
            }
            current = (try? sceneHost.scene.parent(of: id)) ?? nil
        }
        return []
    }

    /// Applies each binding's commands as one transaction, as a client's `transaction`,
    /// at the gesture's time (at most one frame before now: a change never starts further
    /// back than the frame on screen). A failure is logged and sent as `binding.failed`.
    /// Returns the transactions committed.
    private func fire(_ entries: [BindingTable.Entry], at time: Double, on layer: String?, what: String) -> [UInt64] {
        let now = sceneHost.now
        let at = min(now, max(time, now - framePeriod))
        var committed: [UInt64] = []
        for entry in entries {
            if entry.spec.playlist != nil { playActions(entry.spec) }
            guard !entry.spec.transaction.commands.isEmpty else { continue }
            do {
                committed.append(try sceneHost.commit(entry.spec.transaction, owner: nil, at: at))
                counts.fired += 1
                if let measuredTime { latency.committed(kernelTime: measuredTime) }
            } catch {
                counts.failed += 1
                logger.warning("binding '\(entry.id)' (\(what)) failed: \(error.message)")
                post(.bindingFailed(binding: entry.id, on: entry.spec.trigger, layer: layer, key: entry.spec.key, error: error, time: time), layer: nil)
            }
        }
        return committed
    }

    // MARK: Injection

    /// The keyboard that reads injected key codes through the configured keymap.
    func keyboardForInjection() throws(ProtocolError) -> Keyboard {
        if let injectionKeyboard { return injectionKeyboard }
        do {
            let keyboard = try Keyboard(keymap: keymap)
            injectionKeyboard = keyboard
            return keyboard
        } catch {
            throw ProtocolError(
                .invalidValue,
                "input.inject: key codes are read through the keymap, which does not compile: \(error.message); inject the key by \"keysym\" instead")
        }
    }

    /// Counters for `stats`.
    var statistics: JSON {
        .object([
            "events": .number(Double(counts.events)), "gestures": .number(Double(counts.gestures)), "bindings": .number(Double(bindings.count)),
            "fired": .number(Double(counts.fired)), "failed": .number(Double(counts.failed)), "devices": .string(deviceStatus),
            "latency": latency.statistics,
        ])
    }
}

extension InputEvent {
    /// The event at `time` instead of its own.
    func at(_ time: Double) -> InputEvent {
        switch self {
        case .key(var e):
            e.time = time
            return .key(e)
        case .touch(var e):
            e.time = time
            return .touch(e)
        case .pointer(var e):
            e.time = time
            return .pointer(e)
        }
    }
}
