import VitrineCore
import VitrineJSON
import VitrineProtocol

/// Reading the scene: `layer.get`, `layer.tree`, `animation.list`, `time`.
extension SceneHost {
    /// `time`: media time now, a layer's local time, a time converted between layers.
    func time(of layer: String?, convert: TimeConversion?) throws(ProtocolError) -> JSON {
        var result: [String: JSON] = ["time": .number(now)]
        if let layer {
            let local = try core { () throws(CoreError) in try scene.localTime(of: layer, at: now) }
            result["layer"] = local.map(JSON.number) ?? .null
        }
        if let c = convert {
            let converted = try core { () throws(CoreError) in try scene.convertTime(c.time, from: c.from, to: c.to) }
            guard converted.isFinite else {
                throw ProtocolError(
                    .invalidValue,
                    "converting \(c.time) from \(c.from.map { "'\($0)'" } ?? "media time") to \(c.to.map { "'\($0)'" } ?? "media time") gives no finite time: a layer between them runs at a speed too near 0 or too large; give it a usable speed"
                )
            }
            result["converted"] = .number(converted)
        }
        return .object(result)
    }

    func layerDescription(_ id: String, keys: [String]?, presentation: Bool) throws(ProtocolError) -> JSON {
        let kind = try core { () throws(CoreError) in try scene.kind(of: id) }
        let values = try core { () throws(CoreError) in presentation ? try scene.presentationValues(of: id, at: now) : try scene.modelValues(of: id) }
        var properties: [String: JSON] = [:]
        if let keys {
            for key in keys {
                let path: KeyPath
                do { path = try KeyPath(parsing: key) } catch { throw ProtocolError(error) }
                let v = try core { () throws(CoreError) in
                    presentation ? try scene.presentationValue(path, of: id, at: now) : try scene.modelValue(path, of: id)
                }
                properties[key] = v.json
            }
        } else {
            for (slot, descriptor) in kind.properties.enumerated() { properties[descriptor.name] = values[slot: slot].json }
            for (key, value) in values.custom { properties[key] = value.json }
        }
        let parent = try core { () throws(CoreError) in try scene.parent(of: id) }
        return .object([
            "layer": .string(id), "kind": .string(kind.name), "parent": parent.map(JSON.string) ?? .null,
            "properties": .object(properties),
        ])
    }

    func tree(_ id: String) throws(ProtocolError) -> JSON {
        let kind = try core { () throws(CoreError) in try scene.kind(of: id) }
        var subs: [JSON] = []
        for sub in try core({ () throws(CoreError) in try scene.sublayers(of: id) }) { subs.append(try tree(sub)) }
        return .object(["layer": .string(id), "kind": .string(kind.name), "sublayers": .array(subs)])
    }

    static func animationDescription(_ info: Scene.AnimationInfo) -> JSON {
        let a = info.animation
        let type =
            switch a.kind {
            case .basic: "basic"
            case .spring: "spring"
            case .keyframe: "keyframe"
            case .group: "group"
            case .transition: "transition"
            }
        return .object([
            "key": .string(info.key), "animation": .number(Double(info.id)),
            "keyPath": a.keyPath.map { .string($0.description) } ?? .null, "type": .string(type),
            "beginTime": .number(a.timing.beginTime), "duration": .number(a.timing.duration),
            "speed": .number(a.timing.speed), "repeatCount": a.timing.repeatCount.isFinite ? .number(a.timing.repeatCount) : .string("infinity"),
            "autoreverses": .bool(a.timing.autoreverses), "fillMode": .string(a.timing.fillMode.rawValue),
            "additive": .bool(a.isAdditive), "removedOnCompletion": .bool(a.isRemovedOnCompletion),
        ])
    }
}
