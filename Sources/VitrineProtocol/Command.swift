import FoundationEssentials
import Glibc
import VitrineCore

/// One request line, decoded: its id and its command.
public struct Request: Sendable {
    /// The client's id for the request, echoed in the reply: a number or a string.
    public let id: JSON
    public let command: Command
}

/// Where a layer goes among its siblings, as the wire says it.
public enum PlacementSpec: Sendable, Hashable {
    case top, bottom
    case index(Int)
    case above(String)
    case below(String)

    /// The model's placement.
    public var placement: Transaction.Placement {
        switch self {
        case .top: .top
        case .bottom: .bottom
        case .index(let i): .index(i)
        case .above(let id): .above(id)
        case .below(let id): .below(id)
        }
    }
}

/// Every command of the protocol, decoded once from its JSON object. Values stay JSON
/// until they are applied, because their types depend on the layer they go to.
public enum Command: Sendable {
    case hello
    case ping
    /// Counters for monitoring: frames presented, layers, clients, whether anything animates.
    case stats
    case layerAdd(id: String, kind: String, parent: String?, placement: PlacementSpec, properties: [(String, JSON)])
    case layerRemove(id: String)
    case layerMove(id: String, parent: String, placement: PlacementSpec)
    /// Sets properties; `animation` animates every change with that template (from what is
    /// shown to the new value); `actions: false` disables implicit actions.
    case layerSet(id: String, properties: [(String, JSON)], animation: JSON?, actions: Bool)
    case layerGet(id: String, keys: [String]?, presentation: Bool)
    case layerTree(root: String?)
    case layerActions(id: String, actions: [String: JSON]?, actionsFrom: JSON?, policy: String?, displayKeys: [String]?)
    case animationAdd(layer: String, key: String?, animation: JSON)
    /// nil key: every animation of the layer.
    case animationRemove(layer: String, key: String?)
    case animationList(layer: String)
    /// Shows a new value on a rolling number; per-call overrides of its animation.
    case numberSet(NumberSetSpec)
    case transaction(TransactionSpec)
    case layerPause(id: String)
    case layerResume(id: String)
    case layerSpeed(id: String, speed: Double)
    case time(layer: String?, convert: TimeConversion?)
    case clockSet(time: Double)
    case clockAdvance(seconds: Double)
    case screenshot(path: String?, output: String?)
    case subscribe(events: [String])
    case unsubscribe(events: [String])
    case configReload
    /// Removes every layer and animation and shows the configured initial scene again.
    case sceneReset

    /// The command's wire name.
    public var name: String {
        switch self {
        case .hello: "hello"
        case .ping: "ping"
        case .stats: "stats"
        case .layerAdd: "layer.add"
        case .layerRemove: "layer.remove"
        case .layerMove: "layer.move"
        case .layerSet: "layer.set"
        case .layerGet: "layer.get"
        case .layerTree: "layer.tree"
        case .layerActions: "layer.actions"
        case .animationAdd: "animation.add"
        case .animationRemove: "animation.remove"
        case .animationList: "animation.list"
        case .numberSet: "number.set"
        case .transaction: "transaction"
        case .layerPause: "layer.pause"
        case .layerResume: "layer.resume"
        case .layerSpeed: "layer.speed"
        case .time: "time"
        case .clockSet: "clock.set"
        case .clockAdvance: "clock.advance"
        case .screenshot: "screenshot"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .configReload: "config.reload"
        case .sceneReset: "scene.reset"
        }
    }

    /// True for the commands a `transaction` may batch: those that change the scene.
    public var changesScene: Bool {
        switch self {
        case .layerAdd, .layerRemove, .layerMove, .layerSet, .layerActions, .animationAdd, .animationRemove,
             .layerPause, .layerResume, .layerSpeed, .transaction, .numberSet:
            true
        default:
            false
        }
    }
}

/// `number.set`: a value for a rolling number and how to roll to it.
public struct NumberSetSpec: Sendable {
    public var layer: String
    public var value: Double
    /// false: show the value at once.
    public var animated: Bool
    public var animationType: String?
    public var direction: String?
    public var rollThroughDigits: Bool?
    /// Spring overrides: duration, speed, damping, initialVelocity, mass, stiffness.
    public var spring: [String: Double]

    public init(layer: String, value: Double, animated: Bool, animationType: String?, direction: String?, rollThroughDigits: Bool?, spring: [String: Double]) {
        self.layer = layer
        self.value = value
        self.animated = animated
        self.animationType = animationType
        self.direction = direction
        self.rollThroughDigits = rollThroughDigits
        self.spring = spring
    }
}

/// A batch of scene commands applied atomically (CATransaction).
public struct TransactionSpec: Sendable {
    public var duration: Double?
    public var timing: JSON?
    public var disableActions: Bool?
    /// The batch explicitly asks for animation (layers with policy `explicitOnly` animate).
    public var animated: Bool?
    public var commands: [Command]
}

/// `time`'s optional conversion of a time between two layers' timelines.
public struct TimeConversion: Sendable {
    public var time: Double
    /// nil: media time.
    public var from: String?
    public var to: String?
}

extension Request {
    /// The largest nesting of transactions inside transactions.
    static let maximumNesting = 8

    /// True when a line (without its newline) is empty or holds only JSON whitespace —
    /// spaces, tabs, carriage returns: such a line is no request and gets no reply.
    public static func isBlank(_ line: some Collection<UInt8>) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    }

    /// Decodes one request line (without its newline). On failure returns the error and,
    /// when it could be read, the request's id so that the reply can carry it. A blank
    /// line (`isBlank`) is no request: callers skip it rather than decode it.
    public static func decode(_ line: some Collection<UInt8>) -> Result<Request, RequestError> {
        guard let text = String(validating: line, as: UTF8.self) else {
            return .failure(RequestError(id: nil, error: ProtocolError(.invalidUTF8, "the line is not valid UTF-8; send UTF-8 JSON, one object per line")))
        }
        let json: JSON
        do { json = try JSON(parsing: Data(text.utf8)) } catch { return .failure(RequestError(id: nil, error: error)) }
        guard let object = json.object else {
            return .failure(RequestError(id: nil, error: ProtocolError(.notAnObject, "a request is a JSON object such as {\"id\": 1, \"cmd\": \"ping\"}, not \(json.kindName)")))
        }
        let id = object["id"]
        if let id, id != .null, id.number == nil, id.string == nil {
            return .failure(RequestError(id: nil, error: ProtocolError(.wrongType, "\"id\" is a number or a string, not \(id.kindName)")))
        }
        do throws(ProtocolError) {
            guard let id, id != .null else {
                throw ProtocolError(.missingField, "every request needs an \"id\" (a number or a string) to match its reply")
            }
            return .success(Request(id: id, command: try Command(object: object, context: "request", depth: 0)))
        } catch {
            return .failure(RequestError(id: id, error: error))
        }
    }
}

/// Why a request line was refused, with its id when known.
public struct RequestError: Error, Sendable {
    public let id: JSON?
    public let error: ProtocolError
}

extension Command {
    /// The fields every command may carry besides its own.
    static let envelope: Set<String> = ["id", "cmd"]

    /// Decodes a command object (a request, or an entry of a transaction's `commands`).
    init(object o: [String: JSON], context: String, depth: Int) throws(ProtocolError) {
        guard let cmd = o["cmd"] else {
            throw ProtocolError(.missingField, "the \(context) needs a \"cmd\", e.g. \"layer.set\"; \"hello\" lists the commands")
        }
        guard let name = cmd.string else { throw ProtocolError(.wrongType, "\"cmd\" is a string, not \(cmd.kindName)") }
        let r = Fields(object: o, command: name)
        switch name {
        case "hello":
            try r.only([])
            self = .hello
        case "ping":
            try r.only([])
            self = .ping
        case "stats":
            try r.only([])
            self = .stats
        case "layer.add":
            try r.only(["layer", "kind", "parent", "index", "above", "below", "properties"])
            self = .layerAdd(
                id: try r.requiredString("layer"), kind: try r.string("kind") ?? "layer", parent: try r.string("parent"),
                placement: try r.placement(), properties: try r.properties())
        case "layer.remove":
            try r.only(["layer"])
            self = .layerRemove(id: try r.requiredString("layer"))
        case "layer.move":
            try r.only(["layer", "parent", "index", "above", "below"])
            self = .layerMove(id: try r.requiredString("layer"), parent: try r.requiredString("parent"), placement: try r.placement())
        case "layer.set":
            try r.only(["layer", "properties", "animation", "actions"])
            let properties = try r.properties()
            guard !properties.isEmpty else { throw ProtocolError(.missingField, "layer.set needs \"properties\": {\"key\": value, …}") }
            if let a = o["animation"], a.object == nil { throw ProtocolError(.wrongType, "layer.set: \"animation\" is an object such as {\"duration\": 2}") }
            self = .layerSet(id: try r.requiredString("layer"), properties: properties, animation: o["animation"], actions: try r.bool("actions") ?? true)
        case "layer.get":
            try r.only(["layer", "keys", "presentation"])
            self = .layerGet(id: try r.requiredString("layer"), keys: try r.strings("keys"), presentation: try r.bool("presentation") ?? false)
        case "layer.tree":
            try r.only(["root"])
            self = .layerTree(root: try r.string("root"))
        case "layer.actions":
            try r.only(["layer", "actions", "actionsFrom", "policy", "displayKeys"])
            if let a = o["actions"], a.object == nil { throw ProtocolError(.wrongType, "layer.actions: \"actions\" maps keys to an animation object or null") }
            if let f = o["actionsFrom"], f.string == nil, f != .null { throw ProtocolError(.wrongType, "layer.actions: \"actionsFrom\" is a layer id or null") }
            self = .layerActions(
                id: try r.requiredString("layer"), actions: o["actions"]?.object, actionsFrom: o["actionsFrom"],
                policy: try r.string("policy"), displayKeys: try r.strings("displayKeys"))
        case "animation.add":
            try r.only(["layer", "key", "animation"])
            guard let a = o["animation"], a.object != nil else {
                throw ProtocolError(.missingField, "animation.add needs \"animation\": {\"keyPath\": …, …}")
            }
            self = .animationAdd(layer: try r.requiredString("layer"), key: try r.string("key"), animation: a)
        case "animation.remove":
            try r.only(["layer", "key"])
            self = .animationRemove(layer: try r.requiredString("layer"), key: try r.string("key"))
        case "animation.list":
            try r.only(["layer"])
            self = .animationList(layer: try r.requiredString("layer"))
        case "number.set":
            try r.only(["layer", "value", "animated", "animationType", "direction", "rollThroughDigits", "spring"])
            guard let value = try r.number("value") else { throw ProtocolError(.missingField, "number.set needs \"value\": a number") }
            guard abs(value) <= 1e15 else { throw ProtocolError(.invalidValue, "number.set: \"value\" must lie within ±1e15") }
            var spring: [String: Double] = [:]
            if let s = o["spring"] {
                guard let so = s.object else { throw ProtocolError(.wrongType, "number.set: \"spring\" is an object such as {\"damping\": 12}") }
                let sr = Fields(object: so, command: "number.set spring")
                try sr.only(["duration", "speed", "damping", "initialVelocity", "mass", "stiffness"], envelope: false)
                for key in so.keys { spring[key] = try sr.number(key) }
            }
            self = .numberSet(NumberSetSpec(
                layer: try r.requiredString("layer"), value: value, animated: try r.bool("animated") ?? true,
                animationType: try r.string("animationType"), direction: try r.string("direction"),
                rollThroughDigits: try r.bool("rollThroughDigits"), spring: spring))
        case "transaction":
            try r.only(["duration", "timing", "disableActions", "animated", "commands"])
            guard depth < Request.maximumNesting else { throw ProtocolError(.invalidValue, "transactions nest at most \(Request.maximumNesting) deep") }
            guard let list = o["commands"]?.array else { throw ProtocolError(.missingField, "transaction needs \"commands\": [ {\"cmd\": …}, … ]") }
            var commands: [Command] = []
            for (i, item) in list.enumerated() {
                guard let object = item.object else { throw ProtocolError(.wrongType, "transaction commands[\(i)] is an object with a \"cmd\"") }
                let command = try Command(object: object, context: "transaction's commands[\(i)]", depth: depth + 1)
                guard command.changesScene else {
                    throw ProtocolError(.invalidValue, "transaction commands[\(i)]: \(command.name) does not change the scene and cannot be batched")
                }
                commands.append(command)
            }
            self = .transaction(TransactionSpec(
                duration: try r.nonNegative("duration"), timing: o["timing"], disableActions: try r.bool("disableActions"),
                animated: try r.bool("animated"), commands: commands))
        case "layer.pause":
            try r.only(["layer"])
            self = .layerPause(id: try r.requiredString("layer"))
        case "layer.resume":
            try r.only(["layer"])
            self = .layerResume(id: try r.requiredString("layer"))
        case "layer.speed":
            try r.only(["layer", "speed"])
            guard let speed = try r.number("speed") else { throw ProtocolError(.missingField, "layer.speed needs \"speed\": a number such as 0.5") }
            guard abs(speed) <= 1000 else { throw ProtocolError(.invalidValue, "speed must lie within ±1000") }
            self = .layerSpeed(id: try r.requiredString("layer"), speed: speed)
        case "time":
            try r.only(["layer", "convert"])
            var conversion: TimeConversion?
            if let c = o["convert"] {
                guard let co = c.object else { throw ProtocolError(.wrongType, "time: \"convert\" is {\"time\": t, \"from\": layer or null, \"to\": layer or null}") }
                let cr = Fields(object: co, command: "time.convert")
                try cr.only(["time", "from", "to"], envelope: false)
                guard let t = try cr.number("time") else { throw ProtocolError(.missingField, "time: \"convert\" needs a \"time\"") }
                conversion = TimeConversion(time: t, from: try cr.string("from"), to: try cr.string("to"))
            }
            self = .time(layer: try r.string("layer"), convert: conversion)
        case "clock.set":
            try r.only(["time"])
            guard let t = try r.number("time") else { throw ProtocolError(.missingField, "clock.set needs \"time\": seconds ≥ 0") }
            guard t >= 0, t <= 1e9 else { throw ProtocolError(.invalidValue, "clock.set: \"time\" must be seconds within 0…1e9, got \(t)") }
            self = .clockSet(time: t)
        case "clock.advance":
            try r.only(["seconds"])
            guard let s = try r.number("seconds") else {
                throw ProtocolError(.missingField, "clock.advance needs \"seconds\": a number from 0 to 86400")
            }
            guard s >= 0, s <= 86_400 else {
                throw ProtocolError(.invalidValue, "clock.advance: \"seconds\" must be within 0…86400 (time never runs backwards), got \(s)")
            }
            self = .clockAdvance(seconds: s)
        case "screenshot":
            try r.only(["path", "output"])
            self = .screenshot(path: try r.string("path"), output: try r.string("output"))
        case "subscribe", "unsubscribe":
            try r.only(["events"])
            guard let events = try r.strings("events"), !events.isEmpty else {
                throw ProtocolError(.missingField, "\(name) needs \"events\": a list of event names or patterns such as \"animation.*\"")
            }
            self = name == "subscribe" ? .subscribe(events: events) : .unsubscribe(events: events)
        case "config.reload":
            try r.only([])
            self = .configReload
        case "scene.reset":
            try r.only([])
            self = .sceneReset
        default:
            throw ProtocolError(.unknownCommand, "there is no command '\(name)'; \"hello\" lists the commands")
        }
    }

    /// Every command name, as `hello` reports them.
    public static let names = [
        "hello", "ping", "stats", "layer.add", "layer.remove", "layer.move", "layer.set", "layer.get", "layer.tree",
        "layer.actions", "animation.add", "animation.remove", "animation.list", "number.set", "transaction", "layer.pause",
        "layer.resume", "layer.speed", "time", "clock.set", "clock.advance", "screenshot", "subscribe",
        "unsubscribe", "config.reload", "scene.reset",
    ]
}

/// Reads a command's fields with errors that name the command and the field.
private struct Fields {
    let object: [String: JSON]
    let command: String

    func only(_ allowed: Set<String>, envelope: Bool = true) throws(ProtocolError) {
        let known = envelope ? allowed.union(Command.envelope) : allowed
        if let extra = object.keys.sorted().first(where: { !known.contains($0) }) {
            let list = allowed.isEmpty ? "no fields" : "the fields " + allowed.sorted().joined(separator: ", ")
            throw ProtocolError(.unknownField, "\(command) has no field '\(extra)'; it takes \(list)")
        }
    }

    func string(_ key: String) throws(ProtocolError) -> String? {
        guard let v = object[key], v != .null else { return nil }
        guard let s = v.string else { throw ProtocolError(.wrongType, "\(command): \"\(key)\" is a string, not \(v.kindName)") }
        return s
    }

    func requiredString(_ key: String) throws(ProtocolError) -> String {
        guard let s = try string(key) else { throw ProtocolError(.missingField, "\(command) needs \"\(key)\"") }
        return s
    }

    func strings(_ key: String) throws(ProtocolError) -> [String]? {
        guard let v = object[key] else { return nil }
        guard let items = v.array, case let s = items.compactMap(\.string), s.count == items.count else {
            throw ProtocolError(.wrongType, "\(command): \"\(key)\" is a list of strings")
        }
        return s
    }

    func number(_ key: String) throws(ProtocolError) -> Double? {
        guard let v = object[key] else { return nil }
        guard let n = v.number, n.isFinite else { throw ProtocolError(.wrongType, "\(command): \"\(key)\" is a number, not \(v.kindName)") }
        return n
    }

    func nonNegative(_ key: String) throws(ProtocolError) -> Double? {
        guard let n = try number(key) else { return nil }
        guard n >= 0, n <= 1e6 else { throw ProtocolError(.invalidValue, "\(command): \"\(key)\" must be within 0…1000000, got \(n)") }
        return n
    }

    func bool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let v = object[key] else { return nil }
        guard let b = v.bool else { throw ProtocolError(.wrongType, "\(command): \"\(key)\" is true or false, not \(v.kindName)") }
        return b
    }

    func properties() throws(ProtocolError) -> [(String, JSON)] {
        guard let v = object["properties"] else { return [] }
        guard let p = v.object else { throw ProtocolError(.wrongType, "\(command): \"properties\" is an object of key: value") }
        return p.sorted { $0.key < $1.key }
    }

    func placement() throws(ProtocolError) -> PlacementSpec {
        let given = ["index", "above", "below"].filter { object[$0] != nil }
        guard given.count <= 1 else { throw ProtocolError(.invalidValue, "\(command): give at most one of index, above, below") }
        if let i = try number("index") {
            guard i == i.rounded(), abs(i) <= 1e6 else { throw ProtocolError(.invalidValue, "\(command): \"index\" is a whole number") }
            return .index(Int(i))
        }
        if let a = try string("above") { return .above(a) }
        if let b = try string("below") { return .below(b) }
        return .top
    }
}
