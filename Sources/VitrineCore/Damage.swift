/// Screen-space damage: which pixels differ between two render trees.
extension RenderTree {
    /// The screen rectangles (whole pixels, inside the screen) that may differ between
    /// `previous` and `self`: for every layer that appeared, disappeared, changed a
    /// presentation value, a display key, its screen transform, its inherited opacity or
    /// clip, or its place in the drawing order, the pixels it covered and covers. Nodes
    /// are matched by layer, not by id: a layer removed and added again under the same
    /// id is a new one.
    /// Without a previous tree, or when the screen size changed, the whole screen.
    ///
    /// `refine` narrows the damage of a layer that kept its place, transform, opacity,
    /// clip and display keys and changed only slot values or custom values it draws (a
    /// text layer's string, a rolling number's columns):
    /// given the old and the new node it returns the screen rectangles that can differ —
    /// which must lie inside the nodes' visual bounds — or nil to damage both visual
    /// bounds whole.
    public func damage(since previous: RenderTree?, refine: ((_ old: Node, _ new: Node) -> [Rect]?)? = nil) -> [Rect] {
        guard let previous, previous.size == size, previous.output == output else {
            return screen.isEmpty ? [] : [screen]
        }
        var rects: [Rect] = []
        // Old nodes matched so far: while the trees agree by index, the first `agreeing`
        // ones; after that, those marked in `seen`.
        var agreeing = 0
        var seen: [Bool] = []
        var lastCommonOld = -1
        // Nodes are matched by layer: by index while both trees agree, then through a map.
        var oldIndex: [ObjectIdentifier: Int]?
        for j in nodes.indices {
            let i: Int
            if oldIndex == nil, j < previous.nodes.count,
                nodes[j].content === previous.nodes[j].content || nodes[j].content.layer == previous.nodes[j].content.layer
            {
                i = j
            } else {
                if oldIndex == nil {
                    var index: [ObjectIdentifier: Int] = [:]
                    index.reserveCapacity(previous.nodes.count)
                    for k in previous.nodes.indices { index[previous.nodes[k].content.layer] = k }
                    oldIndex = index
                    seen = [Bool](repeating: false, count: previous.nodes.count)
                    for k in 0..<agreeing { seen[k] = true }
                }
                guard let found = oldIndex![nodes[j].content.layer] else {
                    rects.append(nodes[j].visualBounds)
                    continue
                }
                i = found
            }
            if oldIndex == nil { agreeing = j + 1 } else { seen[i] = true }
            if i < lastCommonOld {
                rects.append(previous.nodes[i].visualBounds)
                rects.append(nodes[j].visualBounds)
            } else if nodes[j].stamp == previous.nodes[i].stamp, nodes[j].content === previous.nodes[i].content,
                nodes[j].parentIndex == previous.nodes[i].parentIndex
            {
                // Most nodes of a tree are copies of the previous tree's (same stamp): unchanged.
            } else if let difference = nodeDiffers(j, from: previous, i) {
                if difference == .slotsOnly, nodes[j].plane == nil, let refine, let narrowed = refine(previous.nodes[i], nodes[j]) {
                    // The shadows cast from those pixels change as far as they spread.
                    let spread = nodes[j].shadowSpread
                    if spread == .zero {
                        rects += narrowed
                    } else {
                        let shelter = self.shelter(of: j)
                        for r in narrowed { rects.append(shelter.contains(r) ? r : spread.grow(r)) }
                    }
                } else {
                    rects.append(previous.nodes[i].visualBounds)
                    rects.append(nodes[j].visualBounds)
                    // A shadow drawn from the sublayers' pixels too: its colour or
                    // strength may have changed under every one of them.
                    if let r = sublayersShadowed(j) { rects.append(r) }
                    if let r = previous.sublayersShadowed(i) { rects.append(r) }
                }
            }
            lastCommonOld = max(lastCommonOld, i)
        }
        for i in previous.nodes.indices where oldIndex == nil ? i >= agreeing : !seen[i] {
            rects.append(previous.nodes[i].visualBounds)
        }
        // On the screen only, in place.
        var kept = 0
        for k in rects.indices {
            let r = rects[k].intersection(screen)
            if !r.isEmpty { rects[kept] = r; kept += 1 }
        }
        rects.removeLast(rects.count - kept)
        return mergeDamage(consume rects)
    }

    /// The pixels of node `j`'s sublayers, when its own shadow is drawn from them; nil
    /// otherwise.
    func sublayersShadowed(_ j: Int) -> Rect? {
        let node = nodes[j], end = node.subtreeEnd
        guard node.shadowsSublayers, end > j + 1 else { return nil }
        var box = Rect.null
        for k in (j + 1)..<end { box = box.union(nodes[k].visualBounds) }
        return box
    }

    /// Where node `j`'s pixels change no shadow: the opaque part of the background of its
    /// nearest ancestor whose shadow is drawn from content; `.null` when that background
    /// is not opaque, or when `j` casts such a shadow itself.
    func shelter(of j: Int) -> Rect {
        guard !nodes[j].castsFromContent else { return .null }
        var parent = nodes[j].parent
        while let p = parent, !nodes[p].castsFromContent { parent = nodes[p].parent }
        guard let p = parent else { return .null }
        return TreeBuilder.opaqueBox(nodes[p].values, bounds: nodes[p].values.rect(.bounds), under: nodes[p].transform)
    }

    /// How two versions of a node differ.
    enum NodeDifference {
        /// Only slot values, or custom values the layer draws, differ: same transform,
        /// opacity, clip, parent and display keys.
        case slotsOnly
        /// Anything else.
        case other
    }

    /// How node `j` of `self` may look different from node `i` of `old`; nil when it
    /// cannot.
    func nodeDiffers(_ j: Int, from old: RenderTree, _ i: Int) -> NodeDifference? {
        nodes.withUnsafeBufferPointer { new in
            old.nodes.withUnsafeBufferPointer { old in
                let a = new.baseAddress! + j, b = old.baseAddress! + i
                if a.pointee.transform != b.pointee.transform || a.pointee.inheritedOpacity != b.pointee.inheritedOpacity
                    || a.pointee.clip != b.pointee.clip || a.pointee.hasMask != b.pointee.hasMask
                {
                    return .other
                }
                if a.pointee.extras !== b.pointee.extras {
                    if a.pointee.shadowSpread != b.pointee.shadowSpread || a.pointee.shadowsSublayers != b.pointee.shadowsSublayers
                        || a.pointee.tint != b.pointee.tint
                    {
                        return .other
                    }
                    if a.pointee.plane !== b.pointee.plane, a.pointee.plane.map({ !$0.same(as: b.pointee.plane) }) ?? true { return .other }
                }
                let pa = a.pointee.parentIndex, pb = b.pointee.parentIndex
                if pa < 0 || pb < 0 {
                    if pa != pb { return .other }
                } else if new[Int(pa)].content !== old[Int(pb)].content, new[Int(pa)].content.layer != old[Int(pb)].content.layer {
                    return .other
                }
                if a.pointee.content === b.pointee.content { return nil }
                if a.pointee.content.transition != b.pointee.content.transition { return .other }
                let keys = a.pointee.displayKeys
                if keys != b.pointee.displayKeys { return .other }
                var customChanged = false
                if keys.contains("*") {
                    customChanged = a.pointee.values.custom != b.pointee.values.custom
                } else if !keys.isEmpty {
                    customChanged = keys.contains { a.pointee.values.custom[$0] != b.pointee.values.custom[$0] }
                }
                if !customChanged, a.pointee.values.sameSlots(as: b.pointee.values) { return nil }
                return .slotsOnly
            }
        }
    }
}

/// Merges overlapping rectangles, and rectangles whose union wastes little, so that the
/// rasterizer visits few of them; past 16 the list collapses into one bounding box. Of
/// more than 64, those inside another go first.
/// Works in the array it is given (`consume` it), which it returns.
public func mergeDamage(_ rects: consuming [Rect]) -> [Rect] {
    if rects.count > 64 {
        // Most of many lie inside others (the sublayers of a layer that moved, inside its
        // old and new boxes): those that do not are kept, largest first.
        rects.sort { $0.width * $0.height > $1.width * $1.height }
        var kept: [Rect] = []
        for k in rects.indices where !kept.contains(where: { $0.contains(rects[k]) }) {
            kept.append(rects[k])
            if kept.count > 64 { return [bounds(of: rects)] }
        }
        rects = kept
    }
    var merged = true
    while merged {
        merged = false
        outer: for i in rects.indices {
            for j in rects.indices where j > i {
                let u = rects[i].union(rects[j])
                let area = { (r: Rect) in r.width * r.height }
                if rects[i].intersects(rects[j]) || area(u) <= 1.25 * (area(rects[i]) + area(rects[j])) {
                    rects[i] = u
                    rects.remove(at: j)
                    merged = true
                    break outer
                }
            }
        }
    }
    if rects.count > 16 { return [bounds(of: rects)] }
    rects.sort { ($0.minY, $0.minX) < ($1.minY, $1.minX) }
    return rects
}

/// The smallest rectangle holding all of `rects` (which must not be empty).
private func bounds(of rects: borrowing [Rect]) -> Rect {
    var box = rects[0]
    for i in rects.indices { box = box.union(rects[i]) }
    return box
}
