import VitrineCore

/// A reaction the daemon applies by itself, with no script in the loop: when `trigger`
/// happens on `layer` (or a key is pressed), `transaction` is applied as a client's
/// `transaction` would be (`binding.add`, `[[scene.bindings]]`, a scene file's `bindings`).
public struct BindingSpec: Sendable {
    /// What fires a binding.
    public enum Trigger: String, Sendable, CaseIterable {
        /// A touch (or the left button) went down and up on the layer without moving beyond the tap slop.
        case tap
        /// A touch went down on the layer.
        case press
        /// A touch that went down on the layer ended: lifted anywhere, or cancelled.
        case release
        /// A touch held on the layer, without moving beyond the slop, for the long-press time.
        case longPress
        /// A key was pressed (not its repeats, not its release).
        case key
        /// No input came for `[input] idle_after` seconds (`input.idle`).
        case idle
        /// Input came again after `idle` (`input.active`).
        case active

        /// Whether it fires on no layer: its `layer`, if any, only ties its life to that layer.
        public var isLayerless: Bool { self == .key || self == .idle || self == .active }
    }

    /// The binding's id; nil: the daemon makes one (`binding-N`).
    public var id: String?
    /// The layer whose gestures fire it (and whose removal removes it); optional for keys.
    public var layer: String?
    public var trigger: Trigger
    /// For `key`: the keysym's name as xkbcommon writes it ("Return", "a", "F5").
    public var key: String?
    /// The commands and the settings of the transaction it applies (none for an `idle` or
    /// `active` binding that only resets or restarts).
    public var transaction: TransactionSpec
    /// For `idle` and `active`: the scene is reset first (`scene.reset`: the configured
    /// initial scene again).
    public var resetsScene = false
    /// For `idle` and `active`: the `[[clients]]` entry restarted (stopped and started
    /// again, or started when it is not running).
    public var restartsClient: String?
    /// The playlist played at once (`playlist.play`) when it fires, before the schedule
    /// takes over again.
    public var playlist: String?
    /// The binding in `binding.add`'s vocabulary, without `cmd`, `id` and `binding`: what
    /// `binding.list` shows and the scene journal keeps.
    public var json: [String: JSON]

    /// The fields of a binding besides `cmd` and `id`.
    static let fields: Set<String> = [
        "binding", "layer", "on", "key", "commands", "duration", "timing", "disableActions", "animated", "reset", "client", "playlist",
    ]
    static let transactionFields: Set<String> = ["commands", "duration", "timing", "disableActions", "animated"]

    /// Decodes a binding object: `binding.add`'s fields, or an entry of a scene's `bindings`
    /// (the same fields; `context` names it in errors, such as "binding.add" or "bindings[2]").
    public init(object o: [String: JSON], context: String) throws(ProtocolError) {
        let r = Fields(object: o, command: context)
        try r.only(Self.fields, envelope: context == "binding.add")
        guard let on = try r.string("on") else {
            throw ProtocolError(.missingField, "\(context) needs \"on\": one of \(Trigger.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let trigger = Trigger(rawValue: on) else {
            throw ProtocolError(.invalidValue, "\(context): \"on\" is one of \(Trigger.allCases.map(\.rawValue).joined(separator: ", ")), not '\(on)'")
        }
        self.trigger = trigger
        id = try r.string("binding")
        if let id { try Self.validate(id: id, context: context) }
        layer = try r.string("layer")
        key = try r.string("key")
        if trigger == .key {
            guard let key, !key.isEmpty, key.utf8.count <= 64 else {
                throw ProtocolError(.missingField, "\(context) on \"key\" needs \"key\": a keysym's name such as \"Return\", \"a\" or \"F5\"")
            }
        } else {
            guard layer != nil || trigger.isLayerless else {
                throw ProtocolError(.missingField, "\(context) on \"\(on)\" needs \"layer\": the layer whose \(on) fires it")
            }
            guard key == nil else { throw ProtocolError(.invalidValue, "\(context): \"key\" goes with \"on\": \"key\", not \"\(on)\"") }
        }
        resetsScene = try r.bool("reset") ?? false
        restartsClient = try r.string("client")
        if resetsScene || restartsClient != nil {
            guard trigger == .idle || trigger == .active else {
                throw ProtocolError(.invalidValue, "\(context): \"reset\" and \"client\" go with \"on\": \"idle\" or \"active\", not \"\(on)\"")
            }
            if let name = restartsClient, name.isEmpty || name.utf8.count > 128 {
                throw ProtocolError(.invalidValue, "\(context): \"client\" names a [[clients]] entry (1–128 bytes), not '\(name)'")
            }
            if o["commands"] == nil {
                transaction = TransactionSpec(commands: [])
                json = o.filter { Self.fields.contains($0.key) && $0.key != "binding" }
                return
            }
        }
        playlist = try r.string("playlist")
        if playlist != nil, o["commands"] == nil {
            transaction = TransactionSpec(commands: [])
            json = o.filter { Self.fields.contains($0.key) && $0.key != "binding" }
            return
        }
        guard let commands = o["commands"]?.array, !commands.isEmpty else {
            throw ProtocolError(
                .missingField, "\(context) needs \"commands\": a non-empty list of scene commands, as a transaction's, such as [{\"cmd\": \"layer.set\", …}]")
        }
        let batch = Fields(object: o.filter { Self.transactionFields.contains($0.key) }, command: context)
        guard case .transaction(let spec) = try Command.decodeTransaction(batch, depth: 1) else {
            throw ProtocolError(.internalError, "\(context): the commands did not decode as a transaction")
        }
        transaction = spec
        json = o.filter { Self.fields.contains($0.key) && $0.key != "binding" }
    }

    /// The binding as `binding.list` shows it: its fields with its id under `binding`.
    public func described(id: String) -> JSON {
        var object = json
        object["binding"] = .string(id)
        return .object(object)
    }

    /// Throws `invalid_id` unless `id` is 1–128 letters, digits, `-`, `_`, `:`, `.` (as layer ids).
    static func validate(id: String, context: String, what: String = "binding id") throws(ProtocolError) {
        let allowed = id.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 45 || c == 95 || c == 58 || c == 46
        }
        guard (1...128).contains(id.utf8.count), allowed else {
            throw ProtocolError(
                CoreError.invalidLayerID(id), message: "\(context): '\(id)' is not a valid \(what): 1–128 letters, digits, '-', '_', ':' or '.'")
        }
    }
}

extension Fields {
    /// A non-empty list of layer ids (`subscribe`'s `layers`); the layers need not exist.
    func layerIDs(_ key: String) throws(ProtocolError) -> [String]? {
        guard let ids = try strings(key) else { return nil }
        guard !ids.isEmpty else { throw ProtocolError(.invalidValue, "\(command): \"\(key)\" lists at least one layer id; leave it out for every layer") }
        for id in ids { try BindingSpec.validate(id: id, context: command, what: "layer id") }
        return ids
    }
}

/// A synthetic input event (`input.inject`), fed to the pipeline devices feed.
public enum InjectedInput: Sendable, Equatable {
    /// A touch's phase.
    public enum TouchPhase: String, Sendable, CaseIterable {
        case down, motion, up, cancel
    }

    /// What a pointer did.
    public enum PointerAction: Sendable, Equatable {
        case motion
        /// The evdev button code (`BTN_LEFT` 0x110) and whether it went down.
        case button(UInt32, pressed: Bool)
        /// Scroll amounts in pixels, right and down positive.
        case axis(dx: Double, dy: Double)
    }

    /// A key by evdev code (read through the keymap) or by keysym name (with its text).
    public enum KeyIdentity: Sendable, Equatable {
        case keycode(UInt32)
        case keysym(String, text: String)
    }

    /// Touch `id` at `point` (nil: where it was, for up and cancel).
    case touch(phase: TouchPhase, id: Int, point: Point?, time: Double?)
    /// The pointer at `point` (nil: where it is).
    case pointer(PointerAction, point: Point?, time: Double?)
    /// A key pressed, released, or (`pressed` nil) pressed and released.
    case key(KeyIdentity, pressed: Bool?, time: Double?)

    /// The `time` given: CLOCK_MONOTONIC seconds, as devices stamp events.
    public var time: Double? {
        switch self {
        case .touch(_, _, _, let t), .pointer(_, _, let t), .key(_, _, let t): t
        }
    }

    /// Buttons by name, as `input.inject` takes them besides evdev codes.
    public static let buttons: [String: UInt32] = ["left": 0x110, "right": 0x111, "middle": 0x112]

    /// Decodes `input.inject`'s fields.
    init(_ r: Fields) throws(ProtocolError) {
        guard let type = try r.string("type") else {
            throw ProtocolError(.missingField, "input.inject needs \"type\": touch, pointer or key")
        }
        let time = try r.number("time")
        if let time, !(time >= 0 && time <= 1e9) {
            throw ProtocolError(.invalidValue, "input.inject: \"time\" is CLOCK_MONOTONIC seconds within 0…1e9, got \(time)")
        }
        switch type {
        case "touch":
            try r.only(["type", "phase", "touch", "point", "time"])
            guard let name = try r.string("phase") else { throw ProtocolError(.missingField, "input.inject touch needs \"phase\": down, motion, up or cancel") }
            guard let phase = TouchPhase(rawValue: name) else {
                throw ProtocolError(.invalidValue, "input.inject: \"phase\" is one of down, motion, up, cancel, not '\(name)'")
            }
            let id = try r.number("touch") ?? 0
            guard id == id.rounded(), id >= 0, id <= 1_000_000 else {
                throw ProtocolError(.invalidValue, "input.inject: \"touch\" is a touch id, a whole number within 0…1000000, got \(id)")
            }
            let point = try Self.point(r)
            if point == nil, phase == .down || phase == .motion {
                throw ProtocolError(.missingField, "input.inject touch \(name) needs \"point\": [x, y] in the output's pixels")
            }
            self = .touch(phase: phase, id: Int(id), point: point, time: time)
        case "pointer":
            try r.only(["type", "action", "point", "button", "pressed", "delta", "time"])
            let action = try r.string("action") ?? "motion"
            let point = try Self.point(r)
            switch action {
            case "motion":
                guard point != nil else { throw ProtocolError(.missingField, "input.inject pointer motion needs \"point\": [x, y] in the output's pixels") }
                self = .pointer(.motion, point: point, time: time)
            case "button":
                guard let pressed = try r.bool("pressed") else {
                    throw ProtocolError(.missingField, "input.inject pointer button needs \"pressed\": true or false")
                }
                self = .pointer(.button(try Self.button(r), pressed: pressed), point: point, time: time)
            case "axis":
                guard let delta = r.object["delta"] else { throw ProtocolError(.missingField, "input.inject pointer axis needs \"delta\": [dx, dy] in pixels") }
                guard case .point(let d) = try Value(json: delta, as: .point, at: "delta") else {
                    throw ProtocolError(.wrongType, "input.inject: \"delta\" is [dx, dy]")
                }
                self = .pointer(.axis(dx: d.x, dy: d.y), point: point, time: time)
            default:
                throw ProtocolError(.invalidValue, "input.inject: \"action\" is one of motion, button, axis, not '\(action)'")
            }
        case "key":
            try r.only(["type", "keycode", "keysym", "text", "pressed", "time"])
            let pressed = try r.bool("pressed")
            if let code = try r.number("keycode") {
                guard r.object["keysym"] == nil, r.object["text"] == nil else {
                    throw ProtocolError(.invalidValue, "input.inject: give \"keycode\" (read through the keymap) or \"keysym\" (with its \"text\"), not both")
                }
                guard code == code.rounded(), code >= 1, code <= 0x2ff else {
                    throw ProtocolError(.invalidValue, "input.inject: \"keycode\" is an evdev key code within 1…767 (KEY_A is 30), got \(code)")
                }
                self = .key(.keycode(UInt32(code)), pressed: pressed, time: time)
            } else if let keysym = try r.string("keysym") {
                guard !keysym.isEmpty, keysym.utf8.count <= 64 else {
                    throw ProtocolError(.invalidValue, "input.inject: \"keysym\" is a keysym's name such as \"Return\"")
                }
                let text = try r.string("text") ?? ""
                guard text.utf8.count <= 64 else { throw ProtocolError(.invalidValue, "input.inject: \"text\" is what one key types, at most 64 bytes") }
                self = .key(.keysym(keysym, text: text), pressed: pressed, time: time)
            } else {
                throw ProtocolError(
                    .missingField, "input.inject key needs \"keycode\" (an evdev code, read through the keymap) or \"keysym\" (a name such as \"Return\")")
            }
        default:
            throw ProtocolError(.invalidValue, "input.inject: \"type\" is one of touch, pointer, key, not '\(type)'")
        }
    }

    private static func point(_ r: Fields) throws(ProtocolError) -> Point? {
        guard let json = r.object["point"] else { return nil }
        guard case .point(let p) = try Value(json: json, as: .point, at: "point") else { throw ProtocolError(.wrongType, "input.inject: \"point\" is [x, y]") }
        return p
    }

    private static func button(_ r: Fields) throws(ProtocolError) -> UInt32 {
        guard let json = r.object["button"] else { return buttons["left"]! }
        if let name = json.string {
            guard let code = buttons[name] else {
                throw ProtocolError(.invalidValue, "input.inject: \"button\" is left, right, middle or an evdev code, not '\(name)'")
            }
            return code
        }
        guard let code = json.number, code == code.rounded(), code >= 0x100, code <= 0x2ff else {
            throw ProtocolError(.invalidValue, "input.inject: \"button\" is left, right, middle or an evdev button code within 256…767 (BTN_LEFT is 272)")
        }
        return UInt32(code)
    }
}

extension Command {
    /// Decodes the commands of input and bindings; nil when `name` is none of them.
    static func decodeInput(_ name: String, _ r: Fields) throws(ProtocolError) -> Command? {
        switch name {
        case "binding.add":
            return .bindingAdd(try BindingSpec(object: r.object, context: name))
        case "binding.remove":
            try r.only(["binding", "layer"])
            let binding = try r.string("binding"), layer = try r.string("layer")
            guard (binding == nil) != (layer == nil) else {
                throw ProtocolError(.missingField, "binding.remove needs \"binding\" (an id) or \"layer\" (every binding of that layer), one of them")
            }
            return .bindingRemove(binding: binding, layer: layer)
        case "binding.list":
            try r.only(["layer"])
            return .bindingList(layer: try r.string("layer"))
        case "input.inject":
            return .inputInject(try InjectedInput(r))
        default:
            return nil
        }
    }
}
