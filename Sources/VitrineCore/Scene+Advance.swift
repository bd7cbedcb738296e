/// Moving time forward: animations that start and end, and the events they produce.
extension Scene {
    /// Brings the scene to media time `time`: marks animations that began, ends those
    /// whose active interval is over (removing them if `isRemovedOnCompletion`), and
    /// returns every event since the last call, in a deterministic order.
    ///
    /// Call it once per frame before rendering. Presentation queries do not need it,
    /// but a finished animation stays attached (and, with a forwards fill, shown) until
    /// `advance` removes it, as in Core Animation.
    public func advance(to time: Double) -> [SceneEvent] {
        var stepEvents: [(UInt64, Int, SceneEvent)] = []
        var animating = false
        for layer in animatedLayers.values {
            guard let t = localTime(of: layer, at: time) else {
                animating = animating || layer.animations.contains { !$0.hasFinished }
                continue
            }
            // Most frames change nothing: look before building a new list.
            let due = layer.animations.contains { a in
                let timing = a.track.animation.timing
                return (!a.hasStarted && timing.hasStarted(atParent: t)) || (!a.hasFinished && timing.hasEnded(atParent: t))
            }
            guard due else {
                animating = animating || layer.animations.contains { !$0.hasFinished }
                continue
            }
            var kept: [AttachedAnimation] = []
            kept.reserveCapacity(layer.animations.count)
            for var attached in layer.animations {
                let timing = attached.track.animation.timing
                if !attached.hasStarted, timing.hasStarted(atParent: t) {
                    attached.hasStarted = true
                    stepEvents.append((attached.id, 0, .animationStarted(layer: layer.id, key: attached.key, animation: attached.id)))
                }
                if !attached.hasFinished, timing.hasEnded(atParent: t) {
                    attached.hasFinished = true
                    stepEvents.append((attached.id, 1, .animationStopped(layer: layer.id, key: attached.key, animation: attached.id, finished: true)))
                    if let tx = attached.transaction, transactionWaits[tx] != nil {
                        transactionWaits[tx]!.remove(attached.id)
                        if transactionWaits[tx]!.isEmpty {
                            transactionWaits[tx] = nil
                            stepEvents.append((attached.id, 2, .transactionCompleted(transaction: tx)))
                        }
                    }
                    if attached.track.animation.isRemovedOnCompletion { continue }
                }
                animating = animating || !attached.hasFinished
                kept.append(attached)
            }
            setAnimations(kept, of: layer)
        }
        isAnimating = animating
        // Most frames start and end nothing.
        if !stepEvents.isEmpty {
            stepEvents.sort { ($0.0, $0.1) < ($1.0, $1.1) }
            pendingEvents.append(contentsOf: stepEvents.lazy.map(\.2))
        }
        return takeEvents()
    }

    /// The events queued since the last call (commit-time ones included).
    public func takeEvents() -> [SceneEvent] {
        guard !pendingEvents.isEmpty else { return [] }
        defer { pendingEvents.removeAll() }
        return pendingEvents
    }
}
