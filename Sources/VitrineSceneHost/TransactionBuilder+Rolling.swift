import VitrineCore
import VitrineProtocol
import VitrineRolling

/// Rolling numbers: a new value (or format) becomes a plan of column animations.
extension TransactionBuilder {
    /// Appends the plan that makes rolling number `id` show `change`'s value, rolling as
    /// the layer's properties and the change's overrides say; without a change, `values`'
    /// value at once.
    mutating func appendRoll(
        layer id: String, kind: LayerKind, values: PropertyValues, change: RollRequest?, to tx: inout Transaction
    ) throws(ProtocolError) {
        let p = RollingNumberProperties(values, kind: kind)
        let request = change ?? RollRequest(value: p.value, animated: false)
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
                layer: id, text: format.text, oldValue: p.value, request: request, style: p.style, model: model,
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
        _ id: String, kind: LayerKind, properties: [(String, JSON)], actions: Bool, to tx: inout Transaction
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
        try appendRoll(layer: id, kind: kind, values: values, change: RollRequest(value: newValue, animated: valueChanged && actions), to: &tx)
        return .object(["layer": .string(id)])
    }
}
