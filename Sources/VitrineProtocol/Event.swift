import VitrineCore
import VitrineJSON

/// An event the daemon sends, with its fields typed. Its wire form (`fields`,
/// `Wire.event`) and the list of event names (`Name`, `Wire.eventNames`) derive from it;
/// docs/PROTOCOL.md's "Events" table says when each is sent.
///
/// ```swift
/// Wire.event(.transactionCompleted(transaction: 7))
/// // {"event":"transaction.completed","transaction":7}
/// ```
///
/// A field that is optional here is written `null` or left out, as the table says.
public enum Event: Sendable, Equatable {
    /// An animation's active time began.
    case animationStarted(layer: String, key: String, animation: UInt64)
    /// An animation ended: `finished` when it ran to its end, false when it was removed or
    /// replaced first.
    case animationFinished(layer: String, key: String, animation: UInt64, finished: Bool)
    /// Every animation the transaction added has ended.
    case transactionCompleted(transaction: UInt64)
    /// A `number.set` has settled; `finished` is false when a newer value took over.
    case numberCompleted(layer: String, value: Double, finished: Bool, transaction: UInt64)
    /// The configuration was re-read and applied; `restartNeeded` lists the changed keys
    /// that wait for a restart.
    case configReloaded(restartNeeded: [String])
    /// The image `contents` (the file `path`) that `layers` show could not be read or
    /// decoded after the request that set it; `error` gives the code and message.
    case contentFailed(layers: [String], contents: String, path: String, error: ProtocolError)
    /// A key was pressed, repeated or released.
    case inputKey(Key)
    /// A touch point went down, moved, lifted or was cancelled.
    case inputTouch(InputPoint, phase: TouchPhase, touch: Int)
    /// The pointer moved, pressed or released a button, or scrolled.
    case inputPointer(InputPoint, action: PointerAction)
    /// A touch went down on the layer; `point` is in the layer's coordinates.
    case layerPress(LayerTouch, point: Point)
    /// The touch that went down on the layer lifted; `inside` when within the tap slop of
    /// its bounds.
    case layerRelease(LayerTouch, point: Point, inside: Bool)
    /// Down and up without moving beyond the tap slop and before a long press.
    case layerTap(LayerTouch, point: Point)
    /// Held for the long-press time without moving beyond the slop.
    case layerLongPress(LayerTouch, point: Point)
    /// The touch moved beyond the slop, moves, lifts; `translation` and `velocity` are in
    /// the output's pixels.
    case layerDrag(LayerTouch, phase: DragPhase, point: Point, translation: Point, velocity: Point)
    /// The touch ended without lifting.
    case layerCancel(LayerTouch)
    /// A binding's commands failed when it fired (`on` its trigger, on `layer` or by `key`
    /// when it has one); nothing of them was applied.
    case bindingFailed(binding: String, on: BindingSpec.Trigger, layer: String?, key: String?, error: ProtocolError, time: Double)
    /// A video layer's player showed its first frame; `duration` in seconds, when known.
    case videoStarted(layer: String, src: String, duration: Double?)
    /// A video layer that does not loop reached the video's end.
    case videoEnded(layer: String, src: String)
    /// A video layer's source cannot be played.
    case videoError(layer: String, src: String, message: String, debug: String)
    /// An output was blanked (`on` false) or woken.
    case outputPower(output: String, root: String, on: Bool, reason: PowerReason)
    /// The output has a new size (its window was resized).
    case outputResized(output: String, root: String, size: Size)
    /// A Wayland client's toplevel window showed its first buffer.
    case surfaceMapped(Window)
    /// The window stopped showing; `layer` is the surface layer it had, if any.
    case surfaceUnmapped(surface: Int, layer: String?)
    /// A client's program started; `restarts` counts the starts after an exit.
    case clientStarted(name: String, pid: Int, restarts: Int)
    /// A client's program ended, and what follows.
    case clientExited(name: String, pid: Int, exit: ExitStatus, state: ClientState)
    /// The daemon gave up on a client.
    case clientFailed(name: String, reason: String, restarts: Int)
    /// A screen was plugged in and is drawn; `kept` when its root is the one it had before
    /// it was unplugged.
    case outputAdded(output: String, root: String, size: Size, rate: Double, kept: Bool)
    /// A screen was unplugged; its root is kept for `keptSeconds`.
    case outputRemoved(output: String, root: String, keptSeconds: Double)
    /// The window's client left a ping unanswered.
    case surfaceUnresponsive(Window)
    /// The window's client answered again after `surfaceUnresponsive`.
    case surfaceResponsive(Window)
    /// A window moved to another surface layer or to none; `previous` is the layer it was on.
    case surfaceAssigned(Window, previous: String?)
    /// No input came for `[input] idle_after` seconds since the last, at media time `since`.
    case inputIdle(time: Double, since: Double)
    /// Input came after `inputIdle`, `idleSeconds` after the last before it.
    case inputActive(time: Double, idleSeconds: Double)
    /// The screen keyboard typed text (a key, a repeat, an accent).
    case oskText(text: String, time: Double)
    /// The screen keyboard's backspace, enter or an arrow was pressed (or repeated).
    case oskKey(key: String, time: Double)
    /// A watched picture (`[[watch]]`: a `layer` or an `output`) stopped changing while it
    /// was expected to: unchanged since media time `since`, for `duration` seconds; `actions`
    /// are what the daemon does about it (`restart`, `reload`, `commands`).
    case contentStalled(WatchedPicture, since: Double, duration: Double, actions: [String])
    /// The stalled picture changed again (`reason` `changed`), or is no longer expected to
    /// (`idle`: a video paused or ended, the layer gone, the output blanked), at `time`,
    /// `stalledSeconds` after it stalled.
    case contentResumed(WatchedPicture, time: Double, stalledSeconds: Double, reason: String)
    /// A VNC viewer connected (`[remote]`): `session` numbers it; `peer` is where it
    /// connects from ("" when unknown), `user` the name it authenticated with ("" for none).
    case remoteConnected(session: Int, listener: String, output: String, peer: String, user: String, viewOnly: Bool)
    /// The VNC viewer `session` left.
    case remoteDisconnected(session: Int, listener: String, peer: String, user: String)
    /// The TV behind an output's HDMI-CEC adapter reported a new power state ("on",
    /// "standby", "to on", "to standby", or "unknown" when it stopped answering).
    case cecPower(output: String, tvPower: String)
    /// An item of a playlist ended: its proof-of-play entry (docs/PLAYLOG.md).
    case playlogEntry(PlayEntry)
    /// A scene replaced the output's (`scene.load`, a playlist's item): its transition began.
    case sceneLoaded(output: String, scene: String, transition: String?)
    /// A playlist's item began on an output.
    case playlistItem(PlaylistCue)
    /// A playlist's item could not be shown and was passed over; `reason` says why.
    case playlistSkipped(PlaylistCue, reason: String)

    /// The events' names on the wire, in the order `hello` lists them.
    public enum Name: String, CaseIterable, Sendable {
        case animationStarted = "animation.started", animationFinished = "animation.finished"
        case transactionCompleted = "transaction.completed", numberCompleted = "number.completed"
        case configReloaded = "config.reloaded", contentFailed = "content.failed"
        case inputKey = "input.key", inputTouch = "input.touch", inputPointer = "input.pointer"
        case layerPress = "layer.press", layerRelease = "layer.release", layerTap = "layer.tap"
        case layerLongPress = "layer.longPress", layerDrag = "layer.drag", layerCancel = "layer.cancel"
        case bindingFailed = "binding.failed"
        case videoStarted = "video.started", videoEnded = "video.ended", videoError = "video.error"
        case outputPower = "output.power", outputResized = "output.resized"
        case surfaceMapped = "surface.mapped", surfaceUnmapped = "surface.unmapped"
        case clientStarted = "client.started", clientExited = "client.exited", clientFailed = "client.failed"
        case outputAdded = "output.added", outputRemoved = "output.removed"
        case surfaceUnresponsive = "surface.unresponsive", surfaceResponsive = "surface.responsive", surfaceAssigned = "surface.assigned"
        case inputIdle = "input.idle", inputActive = "input.active"
        case oskText = "osk.text", oskKey = "osk.key"
        case contentStalled = "content.stalled", contentResumed = "content.resumed"
        case remoteConnected = "remote.connected", remoteDisconnected = "remote.disconnected"
        case cecPower = "cec.power"
        case playlogEntry = "playlog.entry"
        case sceneLoaded = "scene.loaded", playlistItem = "playlist.item", playlistSkipped = "playlist.skipped"
    }

    /// What the content watchdog watches: a layer's rectangle or a whole output.
    public enum WatchedPicture: Sendable, Equatable {
        case layer(String)
        case output(String)

        var fields: [String: JSON] {
            switch self {
            case .layer(let id): ["layer": .string(id)]
            case .output(let name): ["output": .string(name)]
            }
        }
    }

    /// A touch's phase (`input.touch`).
    public typealias TouchPhase = InjectedInput.TouchPhase
    /// What the pointer did (`input.pointer`).
    public typealias PointerAction = InjectedInput.PointerAction

    /// A drag's phase (`layer.drag`).
    public enum DragPhase: String, Sendable, CaseIterable {
        case began, changed, ended
    }

    /// Why an output's power changed: `output.power`, its `[[outputs]]` schedule, or
    /// `touch`: a touch or click woke a blanked output (and was not delivered).
    public enum PowerReason: String, Sendable, CaseIterable {
        case command, schedule, touch
    }

    /// How a client's process ended.
    public enum ExitStatus: Sendable, Equatable {
        /// It exited with a code.
        case exited(code: Int)
        /// A signal ended it; its name, such as "SIGKILL".
        case signaled(String)
        /// Not known.
        case unknown

        /// `exitCode` and `signal`, the other null (both null when not known).
        public var fields: [String: JSON] {
            switch self {
            case .exited(let code): ["exitCode": .number(Double(code)), "signal": .null]
            case .signaled(let name): ["exitCode": .null, "signal": .string(name)]
            case .unknown: ["exitCode": .null, "signal": .null]
            }
        }
    }

    /// What follows a client's exit (`client.exited`'s `state`).
    public enum ClientState: Sendable, Equatable {
        /// It starts again after `seconds` (`restartIn`).
        case restarting(in: Double)
        /// Its restart policy leaves it down.
        case exited
        /// `client.stop` stopped it.
        case stopped
        /// The daemon gave up on it (`client.failed` follows).
        case failed
    }

    /// A key event: the keysym's name and the text it types through the keymap (`""` for
    /// none and for releases), the evdev code, and the xkb modifiers in effect.
    public struct Key: Sendable, Equatable {
        /// The keysym's name as xkbcommon writes it ("a", "Return", "F5").
        public var keysym: String
        public var text: String
        /// The evdev key code (`KEY_A` is 30).
        public var keycode: UInt32
        /// Pressed or repeated (true), released (false).
        public var pressed: Bool
        /// A repeat while the key is held (`repeat`).
        public var isRepeat: Bool
        /// `Shift`, `Control`, `Mod1` (Alt), `Mod4`, `Lock`, `Mod2`.
        public var modifiers: [String]
        /// Media time.
        public var time: Double
        /// The device's name; nil (left out) when it has none.
        public var device: String?
        /// The transactions the key's bindings committed; left out when none.
        public var transactions: [UInt64]

        public init(
            keysym: String, text: String, keycode: UInt32, pressed: Bool, isRepeat: Bool, modifiers: [String], time: Double, device: String?,
            transactions: [UInt64] = []
        ) {
            (self.keysym, self.text, self.keycode, self.pressed, self.isRepeat, self.modifiers, self.time, self.device, self.transactions) =
                (keysym, text, keycode, pressed, isRepeat, modifiers, time, device, transactions)
        }
    }

    /// Where a touch or the pointer is, in the output's pixels, what is under it, and when
    /// and from which device.
    public struct InputPoint: Sendable, Equatable {
        /// In the output's pixels.
        public var point: Point
        /// The layer under the point (`layer`, null off the screen) and the point in its
        /// coordinates (`layerPoint`, left out with no layer).
        public var hit: Hit?
        /// Media time.
        public var time: Double
        /// The device's name; nil (left out) when it has none.
        public var device: String?

        public init(point: Point, hit: Hit?, time: Double, device: String?) {
            (self.point, self.hit, self.time, self.device) = (point, hit, time, device)
        }
    }

    /// A layer hit at a point, and the point in the layer's coordinates.
    public struct Hit: Sendable, Equatable {
        public var layer: String
        public var point: Point

        public init(layer: String, point: Point) { (self.layer, self.point) = (layer, point) }
    }

    /// The touch a layer holds from when it went down on it until it ends: the layer, the
    /// touch's id (−1 for the pointer's left button), the media time, and the transactions
    /// the gesture's bindings committed (left out when none).
    public struct LayerTouch: Sendable, Equatable {
        public var layer: String
        public var touch: Int
        public var time: Double
        public var transactions: [UInt64]

        public init(layer: String, touch: Int, time: Double, transactions: [UInt64] = []) {
            (self.layer, self.touch, self.time, self.transactions) = (layer, touch, time, transactions)
        }
    }

    /// A Wayland client's toplevel window, as `surface.*` events and `surface.list` describe it.
    public struct Window: Sendable, Equatable {
        /// The window's id, as `surface.assign` and `surface.close` take it.
        public var surface: Int
        /// The protocol its client speaks: "xdg" (Wayland) or "x11" (through Xwayland).
        public var kind: String
        /// The xdg app id, or an X11 window's `WM_CLASS` class (`appId`).
        public var appID: String
        /// An X11 window's `WM_CLASS` instance; nil (left out) for a Wayland window.
        public var instance: String?
        public var title: String
        /// The client's process.
        public var pid: Int
        /// Whether it shows a buffer now.
        public var mapped: Bool
        /// The surface layer showing it (null for none).
        public var layer: String?
        /// False while its client leaves a ping unanswered.
        public var responsive: Bool
        /// The window's size (`width`, `height`), left out while it has no buffer.
        public var size: Size?

        public init(
            surface: Int, kind: String = "xdg", appID: String, instance: String? = nil, title: String, pid: Int, mapped: Bool, layer: String?,
            responsive: Bool, size: Size?
        ) {
            (self.surface, self.kind, self.appID, self.instance, self.title, self.pid) = (surface, kind, appID, instance, title, pid)
            (self.mapped, self.layer, self.responsive, self.size) = (mapped, layer, responsive, size)
        }

        /// The description's fields.
        public var fields: [String: JSON] {
            var fields: [String: JSON] = [
                "surface": .number(Double(surface)), "kind": .string(kind), "appId": .string(appID), "title": .string(title),
                "pid": .number(Double(pid)), "mapped": .bool(mapped), "layer": layer.map(JSON.string) ?? .null, "responsive": .bool(responsive),
            ]
            if let instance { fields["instance"] = .string(instance) }
            if let size {
                fields["width"] = .number(size.width)
                fields["height"] = .number(size.height)
            }
            return fields
        }
    }
}

extension Event {
    /// A scene's event: an animation started or ended, a transaction completed.
    public init(_ event: SceneEvent) {
        switch event {
        case .animationStarted(let layer, let key, let animation): self = .animationStarted(layer: layer, key: key, animation: animation)
        case .animationStopped(let layer, let key, let animation, let finished):
            self = .animationFinished(layer: layer, key: key, animation: animation, finished: finished)
        case .transactionCompleted(let transaction): self = .transactionCompleted(transaction: transaction)
        }
    }
}

extension Event {
    /// The event's name on the wire.
    public var name: Name {
        switch self {
        case .animationStarted: .animationStarted
        case .animationFinished: .animationFinished
        case .transactionCompleted: .transactionCompleted
        case .numberCompleted: .numberCompleted
        case .configReloaded: .configReloaded
        case .contentFailed: .contentFailed
        case .inputKey: .inputKey
        case .inputTouch: .inputTouch
        case .inputPointer: .inputPointer
        case .layerPress: .layerPress
        case .layerRelease: .layerRelease
        case .layerTap: .layerTap
        case .layerLongPress: .layerLongPress
        case .layerDrag: .layerDrag
        case .layerCancel: .layerCancel
        case .bindingFailed: .bindingFailed
        case .videoStarted: .videoStarted
        case .videoEnded: .videoEnded
        case .videoError: .videoError
        case .outputPower: .outputPower
        case .outputResized: .outputResized
        case .surfaceMapped: .surfaceMapped
        case .surfaceUnmapped: .surfaceUnmapped
        case .clientStarted: .clientStarted
        case .clientExited: .clientExited
        case .clientFailed: .clientFailed
        case .outputAdded: .outputAdded
        case .outputRemoved: .outputRemoved
        case .surfaceUnresponsive: .surfaceUnresponsive
        case .surfaceResponsive: .surfaceResponsive
        case .surfaceAssigned: .surfaceAssigned
        case .inputIdle: .inputIdle
        case .inputActive: .inputActive
        case .oskText: .oskText
        case .oskKey: .oskKey
        case .contentStalled: .contentStalled
        case .contentResumed: .contentResumed
        case .remoteConnected: .remoteConnected
        case .remoteDisconnected: .remoteDisconnected
        case .cecPower: .cecPower
        case .playlogEntry: .playlogEntry
        case .sceneLoaded: .sceneLoaded
        case .playlistItem: .playlistItem
        case .playlistSkipped: .playlistSkipped
        }
    }

    /// The event's fields on the wire, without `event` (`Wire.event` adds it).
    public var fields: [String: JSON] {
        switch self {
        case .animationStarted(let layer, let key, let animation):
            return ["layer": .string(layer), "key": .string(key), "animation": .number(Double(animation))]
        case .animationFinished(let layer, let key, let animation, let finished):
            return ["layer": .string(layer), "key": .string(key), "animation": .number(Double(animation)), "finished": .bool(finished)]
        case .transactionCompleted(let transaction):
            return ["transaction": .number(Double(transaction))]
        case .numberCompleted(let layer, let value, let finished, let transaction):
            return ["layer": .string(layer), "value": .number(value), "finished": .bool(finished), "transaction": .number(Double(transaction))]
        case .configReloaded(let restartNeeded):
            return ["restartNeeded": .array(restartNeeded.map(JSON.string))]
        case .contentFailed(let layers, let contents, let path, let error):
            return [
                "layers": .array(layers.map(JSON.string)), "contents": .string(contents), "path": .string(path), "code": .string(error.code),
                "message": .string(error.message),
            ]
        case .inputKey(let key):
            var fields: [String: JSON] = [
                "keysym": .string(key.keysym), "text": .string(key.text), "keycode": .number(Double(key.keycode)), "pressed": .bool(key.pressed),
                "repeat": .bool(key.isRepeat), "modifiers": .array(key.modifiers.map(JSON.string)), "time": .number(key.time),
            ]
            fields["device"] = key.device.map(JSON.string)
            fields["transactions"] = Self.transactions(key.transactions)
            return fields
        case .inputTouch(let place, let phase, let touch):
            var fields = place.fields
            fields["phase"] = .string(phase.rawValue)
            fields["touch"] = .number(Double(touch))
            return fields
        case .inputPointer(let place, let action):
            var fields = place.fields
            switch action {
            case .motion:
                fields["action"] = .string("motion")
            case .button(let code, let pressed):
                fields["action"] = .string("button")
                fields["button"] = .number(Double(code))
                fields["pressed"] = .bool(pressed)
            case .axis(let dx, let dy):
                fields["action"] = .string("axis")
                fields["delta"] = .array([.number(dx), .number(dy)])
            }
            return fields
        case .layerPress(let touch, let point), .layerTap(let touch, let point), .layerLongPress(let touch, let point):
            var fields = touch.fields
            fields["point"] = Self.json(point)
            return fields
        case .layerRelease(let touch, let point, let inside):
            var fields = touch.fields
            fields["point"] = Self.json(point)
            fields["inside"] = .bool(inside)
            return fields
        case .layerDrag(let touch, let phase, let point, let translation, let velocity):
            var fields = touch.fields
            fields["phase"] = .string(phase.rawValue)
            fields["point"] = Self.json(point)
            fields["translation"] = Self.json(translation)
            fields["velocity"] = Self.json(velocity)
            return fields
        case .layerCancel(let touch):
            return touch.fields
        case .bindingFailed(let binding, let on, let layer, let key, let error, let time):
            var fields: [String: JSON] = [
                "binding": .string(binding), "on": .string(on.rawValue), "time": .number(time), "code": .string(error.code),
                "message": .string(error.message),
            ]
            fields["layer"] = layer.map(JSON.string)
            fields["key"] = key.map(JSON.string)
            return fields
        case .videoStarted(let layer, let src, let duration):
            var fields: [String: JSON] = ["layer": .string(layer), "src": .string(src)]
            fields["duration"] = duration.map(JSON.number)
            return fields
        case .videoEnded(let layer, let src):
            return ["layer": .string(layer), "src": .string(src)]
        case .videoError(let layer, let src, let message, let debug):
            return ["layer": .string(layer), "src": .string(src), "message": .string(message), "debug": .string(debug)]
        case .inputIdle(let time, let since):
            return ["time": .number(time), "since": .number(since)]
        case .inputActive(let time, let idleSeconds):
            return ["time": .number(time), "idleSeconds": .number(idleSeconds)]
        case .outputPower(let output, let root, let on, let reason):
            return ["output": .string(output), "root": .string(root), "on": .bool(on), "reason": .string(reason.rawValue)]
        case .outputResized(let output, let root, let size):
            return ["output": .string(output), "root": .string(root), "size": Self.json(size)]
        case .surfaceMapped(let window), .surfaceUnresponsive(let window), .surfaceResponsive(let window):
            return window.fields
        case .surfaceUnmapped(let surface, let layer):
            var fields: [String: JSON] = ["surface": .number(Double(surface))]
            fields["layer"] = layer.map(JSON.string)
            return fields
        case .clientStarted(let name, let pid, let restarts):
            return ["name": .string(name), "pid": .number(Double(pid)), "restarts": .number(Double(restarts))]
        case .clientExited(let name, let pid, let exit, let state):
            var fields = exit.fields
            fields["name"] = .string(name)
            fields["pid"] = .number(Double(pid))
            switch state {
            case .restarting(let seconds):
                fields["state"] = .string("restarting")
                fields["restartIn"] = .number(seconds)
            case .exited: fields["state"] = .string("exited")
            case .stopped: fields["state"] = .string("stopped")
            case .failed: fields["state"] = .string("failed")
            }
            return fields
        case .clientFailed(let name, let reason, let restarts):
            return ["name": .string(name), "reason": .string(reason), "restarts": .number(Double(restarts))]
        case .outputAdded(let output, let root, let size, let rate, let kept):
            return ["output": .string(output), "root": .string(root), "size": Self.json(size), "rate": .number(rate), "kept": .bool(kept)]
        case .outputRemoved(let output, let root, let keptSeconds):
            return ["output": .string(output), "root": .string(root), "keptSeconds": .number(keptSeconds)]
        case .surfaceAssigned(let window, let previous):
            var fields = window.fields
            fields["previous"] = previous.map(JSON.string) ?? .null
            return fields
        case .oskText(let text, let time):
            return ["text": .string(text), "time": .number(time)]
        case .oskKey(let key, let time):
            return ["key": .string(key), "time": .number(time)]
        case .contentStalled(let picture, let since, let duration, let actions):
            return picture.fields.merging(["since": .number(since), "duration": .number(duration), "actions": .array(actions.map(JSON.string))]) { $1 }
        case .contentResumed(let picture, let time, let stalledSeconds, let reason):
            return picture.fields.merging(["time": .number(time), "stalledSeconds": .number(stalledSeconds), "reason": .string(reason)]) { $1 }
        case .remoteConnected(let session, let listener, let output, let peer, let user, let viewOnly):
            return [
                "session": .number(Double(session)), "listener": .string(listener), "output": .string(output), "peer": .string(peer),
                "user": .string(user), "viewOnly": .bool(viewOnly),
            ]
        case .remoteDisconnected(let session, let listener, let peer, let user):
            return ["session": .number(Double(session)), "listener": .string(listener), "peer": .string(peer), "user": .string(user)]
        case .cecPower(let output, let tvPower):
            return ["output": .string(output), "tvPower": .string(tvPower)]
        case .playlogEntry(let entry):
            return entry.fields
        case .sceneLoaded(let output, let scene, let transition):
            return ["output": .string(output), "scene": .string(scene), "transition": transition.map(JSON.string) ?? .null]
        case .playlistItem(let cue):
            return cue.fields
        case .playlistSkipped(let cue, let reason):
            return cue.fields.merging(["reason": .string(reason)]) { $1 }
        }
    }

    fileprivate static func json(_ point: Point) -> JSON { .array([.number(point.x), .number(point.y)]) }
    fileprivate static func json(_ size: Size) -> JSON { .array([.number(size.width), .number(size.height)]) }
    fileprivate static func transactions(_ ids: [UInt64]) -> JSON? { ids.isEmpty ? nil : .array(ids.map { .number(Double($0)) }) }
}

extension Event.InputPoint {
    fileprivate var fields: [String: JSON] {
        var fields: [String: JSON] = ["point": Event.json(point), "time": .number(time), "layer": hit.map { .string($0.layer) } ?? .null]
        fields["layerPoint"] = hit.map { Event.json($0.point) }
        fields["device"] = device.map(JSON.string)
        return fields
    }
}

extension Event.LayerTouch {
    fileprivate var fields: [String: JSON] {
        var fields: [String: JSON] = ["layer": .string(layer), "touch": .number(Double(touch)), "time": .number(time)]
        fields["transactions"] = Event.transactions(transactions)
        return fields
    }
}

/// Which item of which playlist an output shows (`playlist.item`, `playlist.skipped`).
public struct PlaylistCue: Sendable, Equatable {
    public var output: String
    public var playlist: String
    public var item: String
    public var index: Int

    public init(output: String, playlist: String, item: String, index: Int) {
        self.output = output
        self.playlist = playlist
        self.item = item
        self.index = index
    }

    var fields: [String: JSON] { ["output": .string(output), "playlist": .string(playlist), "item": .string(item), "index": .number(Double(index))] }
}
