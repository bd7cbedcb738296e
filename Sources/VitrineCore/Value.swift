import Glibc

/// A property value: what layers store, animations interpolate and the wire carries.
public enum Value: Hashable, Sendable, CustomStringConvertible {
    case number(Double)
    case point(Point)
    case size(Size)
    case rect(Rect)
    /// A straight (not premultiplied) colour.
    case color(Color)
    case transform(AffineTransform)
    /// A 4×4 transform (CATransform3D) that is not affine: its type is `transform` too.
    indirect case transform3D(Transform3D)
    case bool(Bool)
    case string(String)
    /// Nested custom properties, addressed by key paths such as `touches.a.scale`.
    case dictionary([String: Value])
    /// A list, such as a gradient's colours or locations.
    case array([Value])

    /// About how many bytes the value holds beyond its fixed size: the text of strings
    /// and the contents of dictionaries and arrays, which a client chooses.
    public var heapBytes: Int {
        switch self {
        case .string(let s): s.utf8.count
        case .dictionary(let d): d.reduce(0) { $0 + 32 + $1.key.utf8.count + $1.value.heapBytes }
        case .array(let a): a.reduce(0) { $0 + 32 + $1.heapBytes }
        default: 0
        }
    }

    /// The kind of this value.
    public var type: ValueType {
        switch self {
        case .number: .number
        case .point: .point
        case .size: .size
        case .rect: .rect
        case .color: .color
        case .transform, .transform3D: .transform
        case .bool: .bool
        case .string: .string
        case .dictionary: .dictionary
        case .array: .array
        }
    }

    public var number: Double? { if case .number(let v) = self { v } else { nil } }
    public var point: Point? { if case .point(let v) = self { v } else { nil } }
    public var size: Size? { if case .size(let v) = self { v } else { nil } }
    public var rect: Rect? { if case .rect(let v) = self { v } else { nil } }
    public var color: Color? { if case .color(let v) = self { v } else { nil } }
    /// A transform acting in the plane; nil for others and for 4×4 transforms that are not affine.
    public var transform: AffineTransform? {
        switch self {
        case .transform(let v): v
        case .transform3D(let v): v.affine
        default: nil
        }
    }
    /// Any transform as a 4×4 one.
    public var transform3D: Transform3D? {
        switch self {
        case .transform(let v): Transform3D(v)
        case .transform3D(let v): v
        default: nil
        }
    }

    /// The transform value for `t`: `.transform` when it is affine (to within 1e-12, what
    /// recomposing a turn back to zero leaves), so that it draws and compares as a plane
    /// transform does.
    public static func transformValue(_ t: Transform3D) -> Value {
        let flat = [t.m13, t.m14, t.m23, t.m24, t.m31, t.m32, t.m34, t.m43, t.m33 - 1, t.m44 - 1].allSatisfy { abs($0) < 1e-12 }
        return flat ? .transform(AffineTransform(a: t.m11, b: t.m12, c: t.m21, d: t.m22, tx: t.m41, ty: t.m42)) : .transform3D(t)
    }
    public var bool: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var string: String? { if case .string(let v) = self { v } else { nil } }
    public var dictionary: [String: Value]? { if case .dictionary(let v) = self { v } else { nil } }
    public var array: [Value]? { if case .array(let v) = self { v } else { nil } }

    /// The numbers a value is made of, in a fixed order per type; nil for values that do
    /// not interpolate component-wise (booleans, strings, dictionaries).
    var components: [Double]? {
        switch self {
        case .number(let v): [v]
        case .point(let p): [p.x, p.y]
        case .size(let s): [s.width, s.height]
        case .rect(let r): [r.origin.x, r.origin.y, r.size.width, r.size.height]
        case .color(let c): [c.red, c.green, c.blue, c.alpha]
        case .transform(let t): [t.a, t.b, t.c, t.d, t.tx, t.ty]
        case .transform3D(let t): t.entries
        case .bool, .string, .dictionary, .array: nil
        }
    }

    /// A value of the same type as `self` built from `components`.
    func withComponents(_ c: [Double]) -> Value {
        switch self {
        case .number: .number(c[0])
        case .point: .point(Point(x: c[0], y: c[1]))
        case .size: .size(Size(width: c[0], height: c[1]))
        case .rect: .rect(Rect(x: c[0], y: c[1], width: c[2], height: c[3]))
        case .color: .color(Color(red: c[0], green: c[1], blue: c[2], alpha: c[3]))
        case .transform: .transform(AffineTransform(a: c[0], b: c[1], c: c[2], d: c[3], tx: c[4], ty: c[5]))
        case .transform3D: .transform3D(Transform3D(c))
        case .bool, .string, .dictionary, .array: self
        }
    }

    /// True when every number in the value is finite.
    public var isFinite: Bool {
        switch self {
        case .dictionary(let d): d.values.allSatisfy(\.isFinite)
        case .array(let a): a.allSatisfy(\.isFinite)
        default: allComponents(\.isFinite)
        }
    }

    /// Whether every number of a number, point, size, rect, colour or transform satisfies
    /// `test`; true for other values. As `components?.allSatisfy(test) ?? true`, without
    /// building the array.
    func allComponents(_ test: (Double) -> Bool) -> Bool {
        switch self {
        case .number(let v): test(v)
        case .point(let p): test(p.x) && test(p.y)
        case .size(let s): test(s.width) && test(s.height)
        case .rect(let r): test(r.origin.x) && test(r.origin.y) && test(r.size.width) && test(r.size.height)
        case .color(let c): test(c.red) && test(c.green) && test(c.blue) && test(c.alpha)
        case .transform(let t): test(t.a) && test(t.b) && test(t.c) && test(t.d) && test(t.tx) && test(t.ty)
        case .transform3D(let t): t.entries.allSatisfy(test)
        case .bool, .string, .dictionary, .array: true
        }
    }

    public var description: String {
        switch self {
        case .number(let v): v.shortDescription
        case .point(let p): p.description
        case .size(let s): s.description
        case .rect(let r): r.description
        case .color(let c): c.description
        case .transform(let t): t.description
        case .transform3D(let t): t.description
        case .bool(let b): b.description
        case .string(let s): "\"\(s)\""
        case .dictionary(let d):
            "{" + d.keys.sorted().map { "\($0): \(d[$0]!)" }.joined(separator: ", ") + "}"
        case .array(let a):
            "[" + a.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

/// The kinds of values.
public enum ValueType: String, Hashable, Sendable, CustomStringConvertible {
    case number, point, size, rect, color, transform, bool, string, dictionary, array

    public var description: String { rawValue }
}

// MARK: - Interpolation and arithmetic

extension Value {
    /// The value a fraction `t` of the way from `from` to `to`.
    ///
    /// Numbers, points, sizes and rects interpolate component-wise; colours in
    /// premultiplied space; transforms by decomposition (translation, rotation the short
    /// way round, scale, shear), as Core Animation does. Values that cannot be interpolated
    /// (booleans, strings, values of different types) switch at the halfway point; `t`
    /// outside 0…1 extrapolates where that makes sense (springs overshoot).
    public static func interpolate(_ from: Value, _ to: Value, _ t: Double) -> Value {
        switch (from, to) {
        case (.number(let a), .number(let b)):
            return .number(lerp(a, b, t))
        case (.color(let a), .color(let b)):
            return .color(Color.interpolate(a, b, t))
        case (.transform(let a), .transform(let b)):
            if a == b { return from }
            return .transform(
                DecomposedTransform.interpolate(DecomposedTransform(a), DecomposedTransform(b), t).transform)
        case (.transform3D, .transform), (.transform, .transform3D), (.transform3D, .transform3D):
            if from == to { return from }
            guard let a = from.transform3D.flatMap(DecomposedTransform3D.init), let b = to.transform3D.flatMap(DecomposedTransform3D.init) else {
                return t < 0.5 ? from : to
            }
            return .transformValue(DecomposedTransform3D.interpolate(a, b, t).transform)
        case (.dictionary(let a), .dictionary(let b)):
            var result = a
            for (key, bv) in b {
                if let av = a[key] { result[key] = interpolate(av, bv, t) } else if t >= 0.5 { result[key] = bv }
            }
            if t >= 0.5 { for key in a.keys where b[key] == nil { result[key] = nil } }
            return .dictionary(result)
        case (.array(let a), .array(let b)) where a.count == b.count:
            return .array(zip(a, b).map { interpolate($0, $1, t) })
        default:
            guard from.type == to.type, let ca = from.components, let cb = to.components else {
                return t < 0.5 ? from : to
            }
            return from.withComponents(zip(ca, cb).map { lerp($0, $1, t) })
        }
    }

    /// `a + b`: component-wise; transforms concatenated so that `b` acts in `a`'s space
    /// (`b` first, then `a`: an additive rotation turns the layer about its anchor point
    /// wherever `a` moved it); booleans and strings take `b`. Used by additive and
    /// cumulative animations and by `byValue`.
    public static func add(_ a: Value, _ b: Value) -> Value {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            return .number(x + y)
        case (.transform(let x), .transform(let y)):
            return .transform(y.concatenating(x))
        case (.transform3D, .transform), (.transform, .transform3D), (.transform3D, .transform3D):
            return .transformValue(b.transform3D!.concatenating(a.transform3D!))
        case (.dictionary(let x), .dictionary(let y)):
            return .dictionary(x.merging(y) { add($0, $1) })
        case (.array(let x), .array(let y)) where x.count == y.count:
            return .array(zip(x, y).map { add($0, $1) })
        default:
            guard a.type == b.type, let ca = a.components, let cb = b.components else { return b }
            return a.withComponents(zip(ca, cb).map { $0 + $1 })
        }
    }

    /// `a − b`: the value `r` with `add(r, b) == a`.
    public static func subtract(_ a: Value, _ b: Value) -> Value {
        switch (a, b) {
        case (.transform(let x), .transform(let y)):
            return .transform((y.inverted ?? .identity).concatenating(x))
        case (.transform3D, .transform), (.transform, .transform3D), (.transform3D, .transform3D):
            return .transformValue((b.transform3D!.inverted ?? .identity).concatenating(a.transform3D!))
        case (.dictionary(let x), .dictionary(let y)):
            return .dictionary(x.merging(y) { subtract($0, $1) })
        case (.array(let x), .array(let y)) where x.count == y.count:
            return .array(zip(x, y).map { subtract($0, $1) })
        default:
            guard a.type == b.type, let ca = a.components, let cb = b.components else { return a }
            return a.withComponents(zip(ca, cb).map { $0 - $1 })
        }
    }

    /// `a` scaled by `k` (component-wise; a transform is raised to the power `k` through
    /// its decomposition).
    public static func scale(_ a: Value, by k: Double) -> Value {
        switch a {
        case .transform(let t):
            var d = DecomposedTransform(t)
            d.translation = Size(width: d.translation.width * k, height: d.translation.height * k)
            d.rotation *= k
            d.shear *= k
            d.scale = Size(
                width: pow(abs(d.scale.width), k) * (d.scale.width < 0 ? -1 : 1),
                height: pow(d.scale.height, k))
            return .transform(d.transform)
        case .transform3D(let t):
            guard let d = DecomposedTransform3D(t) else { return a }
            return .transformValue(DecomposedTransform3D.interpolate(DecomposedTransform3D(.identity)!, d, k).transform)
        case .dictionary(let d):
            return .dictionary(d.mapValues { scale($0, by: k) })
        case .array(let items):
            return .array(items.map { scale($0, by: k) })
        default:
            guard let c = a.components else { return a }
            return a.withComponents(c.map { $0 * k })
        }
    }

    /// The distance between two values of one type, for paced keyframe animations:
    /// Euclidean over the components; 0 for equal discrete values, 1 otherwise.
    public static func distance(_ a: Value, _ b: Value) -> Double {
        if case .transform(let x) = a, case .transform(let y) = b {
            let dx = DecomposedTransform(x), dy = DecomposedTransform(y)
            return distance(
                .rect(Rect(x: dx.translation.width, y: dx.translation.height, width: dx.scale.width, height: dx.scale.height)),
                .rect(Rect(x: dy.translation.width, y: dy.translation.height, width: dy.scale.width, height: dy.scale.height)))
                + abs(dx.rotation - dy.rotation)
        }
        guard a.type == b.type, let ca = a.components, let cb = b.components else { return a == b ? 0 : 1 }
        return zip(ca, cb).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
    }

    /// Catmull-Rom interpolation between `p1` and `p2` with neighbours `p0` and `p3`
    /// (keyframe calculationMode cubic); linear for values without components.
    static func catmullRom(_ p0: Value, _ p1: Value, _ p2: Value, _ p3: Value, _ t: Double) -> Value {
        guard p1.type == p2.type, p0.type == p1.type, p3.type == p1.type,
            case .some = p1.components, p1.type != .transform, p1.type != .color,
            let c0 = p0.components, let c1 = p1.components, let c2 = p2.components, let c3 = p3.components
        else { return interpolate(p1, p2, t) }
        let t2 = t * t, t3 = t2 * t
        let out = (0..<c1.count).map { i -> Double in
            0.5
                * ((2 * c1[i]) + (-c0[i] + c2[i]) * t
                    + (2 * c0[i] - 5 * c1[i] + 4 * c2[i] - c3[i]) * t2
                    + (-c0[i] + 3 * c1[i] - 3 * c2[i] + c3[i]) * t3)
        }
        return p1.withComponents(out)
    }
}

extension Array {
    /// Whether `other` is this very array — the same storage passed on, not merely equal
    /// elements. Two empty arrays are one. O(1): frames that keep last frame's work while
    /// a value is unchanged ask this instead of comparing elements. Inlinable, so that
    /// callers in other modules get it specialized: unspecialized, it spent more time
    /// looking up witness tables than comparing.
    @inlinable
    public func sharesStorage(with other: [Element]) -> Bool {
        guard count == other.count else { return false }
        guard !isEmpty else { return true }
        return withUnsafeBufferPointer { p in other.withUnsafeBufferPointer { q in p.baseAddress == q.baseAddress } }
    }
}

extension Dictionary {
    /// Changes the value under `key` in place through `body`; nil, calling nothing, when
    /// there is none. `self[key]?.change()` does the same through the subscript's modify
    /// coroutine, whose frame is allocated on the heap on every call where the subscript
    /// is not inlined — eight times a frame while a rolling number's columns animate.
    @inline(__always)
    mutating func updateValue<R>(forKey key: Key, _ body: (inout Value) -> R) -> R? {
        guard let i = index(forKey: key) else { return nil }
        return body(&values[i])
    }
}
