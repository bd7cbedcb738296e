import VitrineCore
import VitrineRolling

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
        if let command = Self.fieldless[name] {
            try r.only([])
            self = command
            return
        }
        switch name {
        case "layer.add":
            try r.only(["layer", "kind", "parent", "index", "above", "below", "properties"])
            self = .layerAdd(
                id: try r.requiredString("layer"), kind: try r.string("kind") ?? "layer", parent: try r.parent(),
                placement: try r.placement(), properties: try r.properties())
        case "layer.remove":
            try r.only(["layer"])
            self = .layerRemove(id: try r.requiredString("layer"))
        case "layer.move":
            try r.only(["layer", "parent", "index", "above", "below"])
            self = .layerMove(id: try r.requiredString("layer"), parent: try r.requiredString("parent"), placement: try r.placement())
        case "layer.set":
            self = try Self.decodeLayerSet(r)
        case "layer.get":
            try r.only(["layer", "keys", "presentation"])
            self = .layerGet(id: try r.requiredString("layer"), keys: try r.strings("keys"), presentation: try r.bool("presentation") ?? false)
        case "layer.tree":
            try r.only(["root"])
            self = .layerTree(root: try r.string("root"))
        case "layer.actions":
            self = try Self.decodeLayerActions(r)
        case "animation.add":
            try r.only(["layer", "key", "animation"])
            guard let a = o["animation"], a.object != nil else {
                throw ProtocolError(.missingField, "animation.add needs \"animation\": {\"keyPath\": …, …}")
            }
            self = .animationAdd(layer: try r.requiredString("layer"), key: try r.string("key"), animation: try AnimationTemplate(json: a))
        case "animation.remove":
            try r.only(["layer", "key"])
            self = .animationRemove(layer: try r.requiredString("layer"), key: try r.string("key"))
        case "animation.list":
            try r.only(["layer"])
            self = .animationList(layer: try r.requiredString("layer"))
        case "number.set":
            self = try Self.decodeNumberSet(r)
        case "transaction":
            self = try Self.decodeTransaction(r, depth: depth)
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
                guard let co = c.object else {
                    throw ProtocolError(.wrongType, "time: \"convert\" is {\"time\": t, \"from\": layer or null, \"to\": layer or null}")
                }
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
            try r.only(["path", "output", "cursor"])
            self = .screenshot(path: try r.string("path"), output: try r.string("output"), cursor: try r.bool("cursor") ?? false)
        case "output.power":
            try r.only(["output", "on"])
            let output = try r.requiredString("output")
            guard let on = try r.bool("on") else {
                throw ProtocolError(.missingField, "output.power needs \"on\": true to wake the output, false to blank it")
            }
            self = .outputPower(output: output, on: on)
        case "surface.assign":
            try r.only(["surface", "layer"])
            guard let surface = try r.number("surface"), surface.rounded() == surface, surface >= 1, surface <= 1e9 else {
                throw ProtocolError(.missingField, "surface.assign needs \"surface\": a surface id from surface.list")
            }
            guard let layer = r.object["layer"], layer.string != nil || layer == .null else {
                throw ProtocolError(.missingField, "surface.assign needs \"layer\": the id of a surface layer, or null to show the surface nowhere")
            }
            self = .surfaceAssign(surface: Int(surface), layer: layer.string)
        case "surface.close":
            try r.only(["surface", "layer"])
            let surface = try r.number("surface")
            let layer = try r.string("layer")
            if surface != nil, layer != nil {
                throw ProtocolError(.invalidValue, "surface.close takes \"surface\" or \"layer\", not both: give the one that names the window")
            }
            guard surface != nil || layer != nil else {
                throw ProtocolError(
                    .missingField, "surface.close needs either \"surface\", a surface id from surface.list, or \"layer\", the surface layer showing it")
            }
            if let surface {
                guard surface.rounded() == surface, surface >= 1, surface <= 1e9 else {
                    throw ProtocolError(.invalidValue, "surface.close: \"surface\" is a surface id from surface.list, got \(surface)")
                }
            }
            self = .surfaceClose(surface: surface.map { Int($0) }, layer: layer)
        case "subscribe", "unsubscribe":
            try r.only(name == "subscribe" ? ["events", "layers"] : ["events"])
            guard let events = try r.strings("events"), !events.isEmpty else {
                throw ProtocolError(.missingField, "\(name) needs \"events\": a list of event names or patterns such as \"animation.*\"")
            }
            self = name == "subscribe" ? .subscribe(events: events, layers: try r.layerIDs("layers")) : .unsubscribe(events: events)
        default:
            if let command = try Self.decodeInput(name, r) {
                self = command
                return
            }
            if let command = try Self.decodeClient(name, r) {
                self = command
                return
            }
            if let command = try Self.decodeKeyboard(name, r) {
                self = command
                return
            }
            if let command = try Self.decodeCEC(name, r) {
                self = command
                return
            }
            if let command = try Self.decodePlayLog(name, r) {
                self = command
                return
            }
            if let command = try Self.decodeSignage(name, r) {
                self = command
                return
            }
            throw ProtocolError(.unknownCommand, "there is no command '\(name)'; \"hello\" lists the commands")
        }
    }

    /// The commands without fields of their own.
    private static let fieldless: [String: Command] = [
        "hello": .hello, "ping": .ping, "stats": .stats, "config.reload": .configReload, "scene.reset": .sceneReset,
        "output.list": .outputList, "surface.list": .surfaceList, "client.list": .clientList,
    ]

    private static func decodeLayerSet(_ r: Fields) throws(ProtocolError) -> Command {
        try r.only(["layer", "properties", "animation", "actions"])
        let properties = try r.properties()
        guard !properties.isEmpty else { throw ProtocolError(.missingField, "layer.set needs \"properties\": {\"key\": value, …}") }
        var template: AnimationTemplate?
        if let a = r.object["animation"] {
            guard let object = a.object else { throw ProtocolError(.wrongType, "layer.set: \"animation\" is an object such as {\"duration\": 2}") }
            for field in ["keyPath", "from", "to", "by", "values", "animations", "key"] where object[field] != nil {
                throw ProtocolError(.invalidValue, "layer.set: the animation takes timing only (duration, timing, type, spring fields…), not '\(field)'")
            }
            template = try AnimationTemplate(json: a, keyPathRequired: false)
            switch template!.kind {
            case .basic, .spring: break
            default: throw ProtocolError(.invalidValue, "layer.set animates with type basic or spring")
            }
        }
        return .layerSet(id: try r.requiredString("layer"), properties: properties, animation: template, actions: try r.bool("actions") ?? true)
    }

    private static func decodeLayerActions(_ r: Fields) throws(ProtocolError) -> Command {
        try r.only(["layer", "actions", "actionsFrom", "policy", "displayKeys"])
        var actions: [String: AnimationTemplate?]?
        if let a = r.object["actions"] {
            guard let given = a.object else { throw ProtocolError(.wrongType, "layer.actions: \"actions\" maps keys to an animation object or null") }
            actions = [:]
            for (key, json) in given {
                guard json != .null else {
                    actions![key] = .some(nil)
                    continue
                }
                var object = json.object ?? [:]
                object["keyPath"] = .string(key)
                actions![key] = try AnimationTemplate(json: .object(object))
            }
        }
        var actionsFrom: String??
        if let f = r.object["actionsFrom"] {
            guard f.string != nil || f == .null else { throw ProtocolError(.wrongType, "layer.actions: \"actionsFrom\" is a layer id or null") }
            actionsFrom = .some(f.string)
        }
        var policy: ActionPolicy?
        if let name = try r.string("policy") {
            guard let p = ActionPolicy(rawValue: name) else {
                throw ProtocolError(.invalidValue, "policy is one of \(ActionPolicy.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
            }
            policy = p
        }
        return .layerActions(
            id: try r.requiredString("layer"), actions: actions, actionsFrom: actionsFrom, policy: policy, displayKeys: try r.strings("displayKeys"))
    }

    private static func decodeNumberSet(_ r: Fields) throws(ProtocolError) -> Command {
        try r.only(["layer", "value", "animated", "animationType", "direction", "rollThroughDigits", "spring"])
        guard let value = try r.number("value") else { throw ProtocolError(.missingField, "number.set needs \"value\": a number") }
        guard abs(value) <= 1e15 else { throw ProtocolError(.invalidValue, "number.set: \"value\" must lie within ±1e15") }
        var spring = RollSpringOverrides()
        if let s = r.object["spring"] {
            guard let so = s.object else { throw ProtocolError(.wrongType, "number.set: \"spring\" is an object such as {\"damping\": 12}") }
            let sr = Fields(object: so, command: "number.set spring")
            try sr.only(["duration", "speed", "damping", "initialVelocity", "mass", "stiffness"], envelope: false)
            spring = RollSpringOverrides(
                duration: try sr.number("duration"), speed: try sr.number("speed"), damping: try sr.number("damping"),
                initialVelocity: try sr.number("initialVelocity"), mass: try sr.number("mass"), stiffness: try sr.number("stiffness"))
        }
        let layer = try r.requiredString("layer"), animated = try r.bool("animated") ?? true
        var change = RollRequest(value: value, animated: animated, spring: spring)
        if let t = try r.string("animationType") {
            guard let type = RollAnimationType(rawValue: t) else {
                throw ProtocolError(.invalidValue, "animationType is one of \(RollAnimationType.allCases.map(\.rawValue).joined(separator: ", ")), not '\(t)'")
            }
            change.animationType = type
        }
        if let d = try r.string("direction") {
            guard let direction = RollDirection(rawValue: d) else {
                throw ProtocolError(.invalidValue, "direction is one of up, down, auto, not '\(d)'")
            }
            change.direction = direction
        }
        change.rollThroughDigits = try r.bool("rollThroughDigits")
        guard spring.duration.map({ $0 > 0 && $0 <= 60 }) ?? true, spring.speed.map({ $0 > 0 && $0 <= 100 }) ?? true else {
            throw ProtocolError(.invalidValue, "spring duration must lie within (0, 60] s and speed within (0, 100]")
        }
        return .numberSet(layer: layer, change: change)
    }

    static func decodeTransaction(_ r: Fields, depth: Int) throws(ProtocolError) -> Command {
        try r.only(["duration", "timing", "disableActions", "animated", "commands"])
        guard depth < Request.maximumNesting else { throw ProtocolError(.invalidValue, "transactions nest at most \(Request.maximumNesting) deep") }
        guard let list = r.object["commands"]?.array else { throw ProtocolError(.missingField, "transaction needs \"commands\": [ {\"cmd\": …}, … ]") }
        var commands: [Command] = []
        for (i, item) in list.enumerated() {
            guard let object = item.object else { throw ProtocolError(.wrongType, "transaction commands[\(i)] is an object with a \"cmd\"") }
            let command = try Command(object: object, context: "transaction's commands[\(i)]", depth: depth + 1)
            guard command.changesScene else {
                throw ProtocolError(.invalidValue, "transaction commands[\(i)]: \(command.name) does not change the scene and cannot be batched")
            }
            commands.append(command)
        }
        return .transaction(
            TransactionSpec(
                duration: try r.nonNegative("duration"),
                timing: try r.object["timing"].map { j throws(ProtocolError) in try AnimationDescription.timingFunction(j) },
                disableActions: try r.bool("disableActions"), animated: try r.bool("animated"), commands: commands))
    }

    /// Every command name, as `hello` reports them.
    public static let names = [
        "hello", "ping", "stats", "layer.add", "layer.remove", "layer.move", "layer.set", "layer.get", "layer.tree",
        "layer.actions", "animation.add", "animation.remove", "animation.list", "number.set", "transaction", "layer.pause",
        "layer.resume", "layer.speed", "time", "clock.set", "clock.advance", "screenshot", "subscribe",
        "unsubscribe", "config.reload", "scene.reset", "binding.add", "binding.remove", "binding.list", "input.inject", "output.list", "output.power",
        "surface.list", "surface.assign", "surface.close",
        "client.start", "client.stop", "client.list", "osk.show", "osk.hide", "osk.layout", "cec.send",
        "playlog.query",
        "scene.load", "playlist.set", "playlist.remove", "playlist.list", "playlist.play", "playlist.stop", "schedule.set", "schedule.remove", "schedule.list",
    ]
}

/// Reads a command's fields with errors that name the command and the field.
struct Fields {
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

    /// `"parent"`: nil when not given, `.some(nil)` for `null` (outside the tree).
    func parent() throws(ProtocolError) -> String?? {
        if object["parent"] == .null { return .some(nil) }
        guard let parent = try string("parent") else { return nil }
        return .some(parent)
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
