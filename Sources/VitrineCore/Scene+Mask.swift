/// Masks (CALayer.mask): a layer's `mask` names a layer outside the tree whose composited
/// alpha clips it. The mask is placed in its layer's space and runs in its layer's time.
extension Scene {
    /// Links `layer` to the layer its model's `mask` names (or to none for ""), checking
    /// that the mask is a layer outside the tree that masks nothing else and does not hold
    /// `layer`. Recorded for undo.
    func linkMask(of layer: Layer) throws(CoreError) {
        let id = layer.model.string(.mask)
        let old = layer.maskLayer
        if let old, old.id == id, layers[id] === old { return }
        var mask: Layer?
        if !id.isEmpty {
            guard let found = layers[id] else {
                throw .invalidValue(keyPath: "mask", "there is no layer '\(id)'; add the mask first, outside the tree (\"parent\": null)")
            }
            guard found !== layer else { throw .invalidValue(keyPath: "mask", "'\(id)' cannot be its own mask") }
            guard found.parent == nil, found.rootOfOutput == nil else {
                throw .invalidValue(
                    keyPath: "mask",
                    "'\(id)' is in the layer tree; a mask must be a layer outside it: add one with \"parent\": null")
            }
            if let host = found.maskHost, host !== layer {
                throw .invalidValue(keyPath: "mask", "'\(id)' is the mask of '\(host.id)' already; a layer masks one layer at most")
            }
            guard !found.isAncestor(of: layer) else {
                throw .invalidValue(keyPath: "mask", "'\(layer.id)' is inside '\(id)' (through sublayers or masks): the mask would clip itself")
            }
            mask = found
        }
        treeChanged()
        old?.maskHost = nil
        layer.maskLayer = mask
        mask?.maskHost = layer
        undoLog?.append {
            mask?.maskHost = nil
            layer.maskLayer = old
            old?.maskHost = layer
        }
    }

    /// Sets `host`'s `mask` to "" (its mask is going), recorded for undo.
    func unsetMask(of host: Layer) {
        let old = host.model
        undoLog?.append { host.model = old }
        host.model.base[BaseProperty.mask.slot] = .string("")
        try? linkMask(of: host)
    }
}
