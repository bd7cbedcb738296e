/// Presentation values and time: what is shown at a given media time.
extension Scene {
    /// The local time of a layer whose parent's time is `parentTime`; nil while a layer
    /// with a bounded duration is inactive (and its animations with it).
    static func layerTime(_ timing: MediaTiming, parentTime: Double?) -> Double? {
        guard let tp = parentTime else { return nil }
        if timing.isIdentity { return tp }
        if timing.duration > 0 { return timing.basicTime(fromParent: tp)?.time }
        return timing.localTime(fromParent: tp)
    }

    /// Local times of a root-first chain of layers at media time `time`.
    func localTimes(of chain: [Layer], at time: Double) -> [Double?] {
        var t: Double? = time
        return chain.map { layer in
            t = Self.layerTime(layer.timing, parentTime: t)
            return t
        }
    }

    /// A layer's local time at media time `time`, through every ancestor's timing;
    /// nil while the layer or an ancestor is inactive.
    public func localTime(of id: String, at time: Double) throws(CoreError) -> Double? {
        localTimes(of: try layer(id).ancestry, at: time).last!
    }

    /// Converts a time from layer `from`'s timeline to layer `to`'s (nil is media time),
    /// as CALayer's convertTime(_:from:) and convertTime(_:to:). Layers with speed 0 map
    /// every time onto one: converting out of them yields their beginTime.
    public func convertTime(_ t: Double, from: String?, to: String?) throws(CoreError) -> Double {
        var media = t
        if let from {
            for layer in try layer(from).ancestry.reversed() {
                media = layer.timing.parentTime(fromLocal: media)
            }
        }
        guard let to else { return media }
        var local = media
        for layer in try layer(to).ancestry {
            local = layer.timing.localTime(fromParent: local)
        }
        return local
    }

    /// Every presentation value of a layer at media time `time`: the model values with
    /// the layer's active animations applied in the order added.
    public func presentationValues(of id: String, at time: Double) throws(CoreError) -> PropertyValues {
        let layer = try layer(id)
        return Self.presentation(of: layer, localTime: localTime(of: layer, at: time))
    }

    /// The presentation value at `keyPath` at media time `time`. Only this layer and its
    /// ancestors' timing are evaluated.
    public func presentationValue(_ keyPath: KeyPath, of id: String, at time: Double) throws(CoreError) -> Value {
        let layer = try layer(id)
        guard let target = layer.target(for: keyPath, create: false) else {
            throw .unknownKeyPath(keyPath.description, layer: id)
        }
        let values = Self.presentation(of: layer, localTime: localTime(of: layer, at: time))
        guard let v = values.value(at: target) else { throw .unknownKeyPath(keyPath.description, layer: id) }
        return v
    }

    func localTime(of layer: Layer, at time: Double) -> Double? {
        let parentTime = layer.timeParent.map { localTime(of: $0, at: time) } ?? time
        return Self.layerTime(layer.timing, parentTime: parentTime)
    }

    /// The layer's values with its animations applied at its local time.
    static func presentation(of layer: Layer, localTime: Double?) -> PropertyValues {
        var values = layer.model
        guard let t = localTime, !layer.animations.isEmpty else { return values }
        for attached in layer.animations {
            apply(attached.track, parentTime: t, to: &values)
        }
        return values
    }

    /// Applies one animation (or a group's children) at parent time `tp`.
    static func apply(_ track: Track, parentTime tp: Double, to values: inout PropertyValues) {
        guard let (basic, iteration) = track.animation.timing.basicTime(fromParent: tp) else { return }
        let duration = track.animation.timing.duration
        var progress = duration > 0 ? basic / duration : 1
        if let tf = track.animation.timingFunction { progress = tf.progress(at: progress) }
        if track.isGroup {
            for child in track.children {
                apply(child, parentTime: progress * duration, to: &values)
            }
            return
        }
        guard let target = track.target else { return }
        let change = { (underlying: Value) in
            contribution(of: track, progress: progress, seconds: basic, iteration: iteration, underlying: underlying)
        }
        var updated = false
        if let component = track.component, case .slot(let i, _) = target {
            updated = values.update(slot: i, component: component, change)
        }
        if !updated { values.update(at: target, change) }
        // CAKeyframeAnimation's rotationMode: the layer turns to the motion's direction.
        if track.rotates, case .keyframe(let k) = track.animation.kind, let angle = k.rotation(at: progress) {
            values.update(at: .slot(BaseProperty.transform.slot, [])) { Value.add($0, .transform(AffineTransform(rotationAngle: angle))) }
        }
    }

    /// The value a track's animation puts at its key path, given the value underneath it.
    /// Reads the animation's endpoints and spring from the track, where they were taken
    /// out of its kind once.
    static func contribution(of track: Track, progress: Double, seconds: Double, iteration: Int, underlying: Value) -> Value {
        var value: Value
        var cycleDelta: Value?
        if let e = track.endpoints {
            let (from, to) = endpoints(e, underlying: underlying, additive: track.animation.isAdditive)
            if let spring = track.spring {
                let t = track.animation.timingFunction == nil ? seconds : progress * track.animation.timing.duration
                value = track.interpolation.mix(from, to, spring.progress(at: t))
            } else {
                value = track.interpolation.mix(from, to, progress)
            }
            if track.animation.isCumulative { cycleDelta = Value.subtract(to, from) }
        } else if case .keyframe(let k) = track.animation.kind {
            value = k.value(at: progress, mix: track.interpolation.function)
            if track.animation.isCumulative, let (first, last) = k.endValues {
                cycleDelta = Value.subtract(last, first)
            }
        } else {
            return underlying
        }
        if let delta = cycleDelta, iteration > 0 {
            value = Value.add(value, Value.scale(delta, by: Double(iteration)))
        }
        return track.animation.isAdditive ? Value.add(underlying, value) : value
    }

    /// CABasicAnimation's from / to / by combinations, with `underlying` standing in for
    /// the current value where CA's documentation says so. Additive animations treat the
    /// underlying value as zero.
    static func endpoints(_ e: Animation.Endpoints, underlying: Value, additive: Bool) -> (Value, Value) {
        let base = additive ? Value.subtract(underlying, underlying) : underlying
        switch (e.from, e.to, e.by) {
        case (let from?, let to?, _): return (from, to)
        case (let from?, nil, let by?): return (from, Value.add(from, by))
        case (nil, let to?, let by?): return (Value.subtract(to, by), to)
        case (let from?, nil, nil): return (from, base)
        case (nil, let to?, nil): return (base, to)
        case (nil, nil, let by?): return (base, Value.add(base, by))
        case (nil, nil, nil): return (base, base)
        }
    }
}

extension PropertyDescriptor.Interpolation {
    /// The value a fraction `t` of the way from `a` to `b`, called without a closure.
    @inline(__always) func mix(_ a: Value, _ b: Value, _ t: Double) -> Value {
        switch self {
        case .values: Value.interpolate(a, b, t)
        case .pathData: function(a, b, t)
        }
    }

    /// The value a fraction of the way between two.
    var function: @Sendable (Value, Value, Double) -> Value {
        switch self {
        case .values: Value.interpolate
        case .pathData:
            { a, b, t in
                guard case .string(let x) = a, case .string(let y) = b else { return Value.interpolate(a, b, t) }
                return .string(PathData.interpolate(x, y, t))
            }
        }
    }
}
