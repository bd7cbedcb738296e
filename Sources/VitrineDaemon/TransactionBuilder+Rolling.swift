import VitrineCore
import VitrineProtocol
import VitrineRolling

/// Rolling numbers: a new value (or format) becomes a plan of column animations.
extension TransactionBuilder {
    /// Appends the plan that makes rolling number `id` show `values`' text: animated
    /// with `request`'s overrides, or at once.
    mutating func appendRoll(
        layer id: String, kind: LayerKind, values: PropertyValues, animated: Bool, overrides: NumberSetSpec?, to tx: inout Transaction
    ) throws(ProtocolError) {
        let p = RollingNumberProperties(values, kind: kind)
        var request = RollRequest(
            value: p.value, animated: animated, animationType: p.animationType, direction: p.direction,
            rollThroughDigits: p.rollThroughDigits, spring: p.spring)
        if let o = overrides {
            request.value = o.value
            if let t = o.animationType {
                guard let type = RollAnimationType(rawValue: t) else {
                    throw ProtocolError(.invalidValue, "animationType is one of \(RollAnimationType.allCases.map(\.rawValue).joined(separator: ", ")), not '\(t)'")
                }
                request.animationType = type
            }
            if let d = o.direction {
                guard let direction = RollDirection(rawValue: d) else {
                    throw ProtocolError(.invalidValue, "direction is one of up, down, auto, not '\(d)'")
                }
                request.direction = direction
            }
            if let through = o.rollThroughDigits { request.rollThroughDigits = through }
            var s = request.spring
            for (key, v) in o.spring {
                switch key {
                case "duration": s.duration = v
                case "speed": s.speed = v
                case "damping": s.damping = v
                case "initialVelocity": s.initialVelocity = v
                case "mass": s.mass = v
                default: s.stiffness = v
                }
            }
            guard s.duration > 0, s.duration <= 60, s.speed > 0, s.speed <= 100 else {
                throw ProtocolError(.invalidValue, "spring duration must lie within (0, 60] s and speed within (0, 100]")
            }
            request.spring = s
        }
        var format = p
        format.value = request.value
        let existing = pendingKinds[id] == nil
        // A layer without column state yet (added by a scene file) shows its value at rest.
        let resting = RollColumns(showing: p.text)
        let model = existing ? RollColumns(values.custom) ?? resting : nil
        let presentation = existing ? (try? scene.presentationValues(of: id, at: now)).flatMap { RollColumns($0.custom) } ?? resting : nil
        let running = existing ? Set(((try? scene.animations(of: id)) ?? []).map(\.key)) : []
        let begin = existing ? ((try? scene.localTime(of: id, at: now)) ?? nil) ?? now : now
        let plan = try core { () throws(CoreError) in
            try RollPlanner.plan(
                layer: id, text: format.text, oldValue: p.value, request: request, model: model,
                presentation: presentation, running: running, begin: begin)
        }
        tx.nest(plan)
    }
}

extension TransactionBuilder {
    /// `layer.set` on a rolling number touching its value or format: the other keys are
    /// set as usual, then the number re-plans — animated when the value changes (unless
    /// actions are off), at once when only the format does.
    mutating func setRollingNumber(
        _ id: String, kind: LayerKind, properties: [(String, JSON)], animation: JSON?, actions: Bool, to tx: inout Transaction
    ) throws(ProtocolError) -> JSON {
        var values = try core { () throws(CoreError) in try scene.modelValues(of: id) }
        var quiet = Transaction(disableActions: true)
        var valueChanged = false
        for (key, json) in properties {
            let path: KeyPath
            do { path = try KeyPath(parsing: key) } catch { throw ProtocolError(error) }
            let value = try Value(json: json, shape: kind.valueShape(at: path), at: "\(id).\(key)")
            if let slot = kind.slot(of: path.property), path.components.count == 1 {
                if kind.properties[slot].name == "value" { valueChanged = values[slot: slot] != value } else { quiet.set(id, path, value) }
                var slots = values.slots
                slots[slot] = value
                values.slots = slots
            } else {
                quiet.set(id, path, value)
            }
        }
        tx.nest(quiet)
        let newValue = values[slot: kind.slot(of: "value")!].number ?? 0
        let spec = NumberSetSpec(layer: id, value: newValue, animated: valueChanged && actions, animationType: nil, direction: nil, rollThroughDigits: nil, spring: [:])
        try appendRoll(layer: id, kind: kind, values: values, animated: spec.animated, overrides: spec, to: &tx)
        return .object(["layer": .string(id)])
    }
}
