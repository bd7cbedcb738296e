import Glibc

/// A dotted path naming a property or a part of one: `opacity`, `position.x`,
/// `bounds.size.width`, `transform.rotation.z`, `touches.a.scale`.
public struct KeyPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The dot-separated parts; never empty, no part empty.
    public let components: [String]

    /// Parses `text`, or throws when it is empty or has an empty part (`a..b`, `.a`).
    public init(parsing text: String) throws(CoreError) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !text.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else {
            throw .invalidKeyPath(text, "a key path is one or more names joined by dots, such as position.x")
        }
        components = parts
    }

    public init(stringLiteral value: String) {
        components = value.split(separator: ".").map(String.init)
        precondition(!components.isEmpty, "empty key path literal")
    }

    init(components: [String]) { self.components = components }

    /// The property the path starts at.
    public var property: String { components[0] }
    /// The parts after the property.
    public var subpath: ArraySlice<String> { components.dropFirst() }

    public var description: String { components.joined(separator: ".") }

    /// True when `self` addresses `other` or a part of it (`position.x` is within `position`).
    public func isWithin(_ other: KeyPath) -> Bool {
        components.count >= other.components.count
            && components.starts(with: other.components)
    }
}

extension Value {
    /// The part of this value that `path` names, or nil when there is no such part.
    ///
    /// Points have `x`, `y`; sizes `width`, `height`; rects `origin`, `size` and their
    /// parts; transforms `rotation` (= `rotation.z`), `scale` (uniform), `scale.x`,
    /// `scale.y`, `translation`, `translation.x`, `translation.y` (and, as 4×4 transforms,
    /// `rotation.x`, `rotation.y`, `scale.z`, `translation.z`); dictionaries their keys;
    /// arrays their indices (`0`, `1`, …).
    public func component(_ path: ArraySlice<String>) -> Value? {
        guard let head = path.first else { return self }
        let rest = path.dropFirst()
        switch self {
        case .point(let p):
            guard rest.isEmpty else { return nil }
            switch head {
            case "x": return .number(p.x)
            case "y": return .number(p.y)
            default: return nil
            }
        case .size(let s):
            guard rest.isEmpty else { return nil }
            switch head {
            case "width": return .number(s.width)
            case "height": return .number(s.height)
            default: return nil
            }
        case .rect(let r):
            switch head {
            case "origin": return Value.point(r.origin).component(rest)
            case "size": return Value.size(r.size).component(rest)
            default: return nil
            }
        case .transform(let t):
            let d = DecomposedTransform(t)
            switch (head, Array(rest)) {
            case ("rotation", []), ("rotation", ["z"]): return .number(d.rotation)
            case ("scale", []): return .number((d.scale.width + d.scale.height) / 2)
            case ("scale", ["x"]): return .number(d.scale.width)
            case ("scale", ["y"]): return .number(d.scale.height)
            case ("translation", []): return .size(d.translation)
            case ("translation", ["x"]): return .number(d.translation.width)
            case ("translation", ["y"]): return .number(d.translation.height)
            case ("rotation", ["x"]), ("rotation", ["y"]), ("translation", ["z"]): return .number(0)
            case ("scale", ["z"]): return .number(1)
            default: return nil
            }
        case .transform3D(let t):
            return t.component(head, Array(rest))
        case .dictionary(let d):
            return d[head]?.component(rest)
        case .array(let a):
            guard let i = Self.index(head), i < a.count else { return nil }
            return a[i].component(rest)
        case .number, .color, .bool, .string:
            return nil
        }
    }

    /// The array index a key path part names: a whole number written without sign or
    /// leading zeros (`0`, `12`).
    static func index(_ part: String) -> Int? {
        var utf8 = part.utf8.makeIterator()
        guard let first = utf8.next(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
        var i = Int(first - UInt8(ascii: "0"))
        while let byte = utf8.next() {
            guard i > 0, i < 100_000_000, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            i = i * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return i
    }

    /// Replaces the part `path` names with `newValue` in place, as `settingComponent`
    /// would; false, changing nothing, where that returns nil. Dictionaries that are not
    /// shared are changed without being copied.
    mutating func setComponent(_ path: ArraySlice<String>, to newValue: Value) -> Bool {
        if case .array(var a) = self, let head = path.first {
            guard let i = Self.index(head), i < a.count else { return false }
            // As for dictionaries below: the element changes in place when not shared.
            self = .bool(false)
            defer { self = .array(a) }
            return a[i].setComponent(path.dropFirst(), to: newValue)
        }
        guard case .dictionary(var d) = self, let head = path.first else {
            guard let v = settingComponent(path, to: newValue) else { return false }
            self = v
            return true
        }
        // Drop this value's reference, so that `d` is the only one.
        self = .bool(false)
        defer { self = .dictionary(d) }
        let rest = path.dropFirst()
        if rest.isEmpty {
            d[head] = newValue
            return true
        }
        if d[head] != nil { return d[head]!.setComponent(rest, to: newValue) }
        guard let child = Value.dictionary([:]).settingComponent(rest, to: newValue) else { return false }
        d[head] = child
        return true
    }

    /// Changes the part `path` names, in place, to what `change` makes of it: one walk
    /// down the path where reading the part and then setting it would take two. False,
    /// changing nothing, where there is no such part, or where the new value has another
    /// type than the part (in an array, or inside a point, size, rect or transform; a
    /// dictionary's entries take any value, as in `setComponent`).
    mutating func updateComponent(_ path: ArraySlice<String>, anyType: Bool = true, _ change: (Value) -> Value) -> Bool {
        guard let head = path.first else {
            let new = change(self)
            var isDictionary = false
            if case .dictionary = self { isDictionary = true }
            guard anyType || isDictionary || new.type == type else { return false }
            self = new
            return true
        }
        if case .array(var a) = self {
            guard let i = Self.index(head), i < a.count else { return false }
            // As in setComponent: the element changes in place when not shared.
            self = .bool(false)
            defer { self = .array(a) }
            return a[i].updateComponent(path.dropFirst(), anyType: false, change)
        }
        if case .dictionary(var d) = self {
            self = .bool(false)
            defer { self = .dictionary(d) }
            return d.updateValue(forKey: head) { $0.updateComponent(path.dropFirst(), change) } ?? false
        }
        guard let current = component(path), let updated = settingComponent(path, to: change(current)) else { return false }
        self = updated
        return true
    }

    /// This value with the part `path` names replaced by `newValue`, or nil when there is
    /// no such part or `newValue` has the wrong type for it. Dictionaries grow the keys a
    /// path names; arrays keep their length.
    public func settingComponent(_ path: ArraySlice<String>, to newValue: Value) -> Value? {
        guard let head = path.first else {
            if case .dictionary = self { return newValue }
            return newValue.type == type ? newValue : nil
        }
        let rest = path.dropFirst()
        switch self {
        case .point(var p):
            guard rest.isEmpty, let v = newValue.number else { return nil }
            switch head {
            case "x": p.x = v
            case "y": p.y = v
            default: return nil
            }
            return .point(p)
        case .size(var s):
            guard rest.isEmpty, let v = newValue.number else { return nil }
            switch head {
            case "width": s.width = v
            case "height": s.height = v
            default: return nil
            }
            return .size(s)
        case .rect(var r):
            switch head {
            case "origin":
                guard let p = Value.point(r.origin).settingComponent(rest, to: newValue)?.point else { return nil }
                r.origin = p
            case "size":
                guard let s = Value.size(r.size).settingComponent(rest, to: newValue)?.size else { return nil }
                r.size = s
            default: return nil
            }
            return .rect(r)
        case .transform(let t):
            var d = DecomposedTransform(t)
            switch (head, Array(rest), newValue) {
            case ("rotation", [], .number(let v)), ("rotation", ["z"], .number(let v)): d.rotation = v
            case ("scale", [], .number(let v)): d.scale = Size(width: v, height: v)
            case ("scale", ["x"], .number(let v)): d.scale.width = v
            case ("scale", ["y"], .number(let v)): d.scale.height = v
            case ("translation", [], .size(let v)): d.translation = v
            case ("translation", ["x"], .number(let v)): d.translation.width = v
            case ("translation", ["y"], .number(let v)): d.translation.height = v
            case ("rotation", ["x"], _), ("rotation", ["y"], _), ("translation", ["z"], _), ("scale", ["z"], _):
                return Transform3D(t).settingComponent(head, Array(rest), to: newValue).map(Value.transformValue)
            default: return nil
            }
            return .transform(d.transform)
        case .transform3D(let t):
            return t.settingComponent(head, Array(rest), to: newValue).map(Value.transformValue)
        case .dictionary(var d):
            let child = d[head] ?? .dictionary([:])
            if rest.isEmpty {
                d[head] = newValue
            } else {
                guard let updated = child.settingComponent(rest, to: newValue) else { return nil }
                d[head] = updated
            }
            return .dictionary(d)
        case .array(var a):
            // Arrays keep their length: an index past the end names nothing.
            guard let i = Self.index(head), i < a.count, let updated = a[i].settingComponent(rest, to: newValue) else { return nil }
            a[i] = updated
            return .array(a)
        case .number, .color, .bool, .string:
            return nil
        }
    }
}

extension Transform3D {
    /// The rotation as angles about x, then y, then z (radians): the rotation is
    /// Rx · Ry · Rz, each as `Transform3D(rotationAngle:x:y:z:)` makes it.
    static func eulerAngles(_ r: [[Double]]) -> (x: Double, y: Double, z: Double) {
        let sy = max(-1, min(1, -r[0][2]))
        if abs(sy) > 1 - 1e-12 {
            return (atan2(-r[2][1], r[1][1]), asin(sy), 0)
        }
        return (atan2(r[1][2], r[2][2]), asin(sy), atan2(r[0][1], r[0][0]))
    }

    /// The part of a 4×4 transform a key path names, as `Value.component` describes.
    func component(_ head: String, _ rest: [String]) -> Value? {
        guard let d = DecomposedTransform3D(self) else { return nil }
        let e = Self.eulerAngles(DecomposedTransform3D.rows(d.rotation))
        switch (head, rest) {
        case ("rotation", []), ("rotation", ["z"]): return .number(e.z)
        case ("rotation", ["x"]): return .number(e.x)
        case ("rotation", ["y"]): return .number(e.y)
        case ("scale", []): return .number((d.scale[0] + d.scale[1]) / 2)
        case ("scale", ["x"]): return .number(d.scale[0])
        case ("scale", ["y"]): return .number(d.scale[1])
        case ("scale", ["z"]): return .number(d.scale[2])
        case ("translation", []): return .size(Size(width: d.translation[0], height: d.translation[1]))
        case ("translation", ["x"]): return .number(d.translation[0])
        case ("translation", ["y"]): return .number(d.translation[1])
        case ("translation", ["z"]): return .number(d.translation[2])
        default: return nil
        }
    }

    /// The transform with the part `head.rest` replaced, or nil when there is no such part
    /// or `newValue` does not fit it.
    func settingComponent(_ head: String, _ rest: [String], to newValue: Value) -> Transform3D? {
        guard var d = DecomposedTransform3D(self) else { return nil }
        var e = Self.eulerAngles(DecomposedTransform3D.rows(d.rotation))
        switch (head, rest, newValue) {
        case ("rotation", [], .number(let v)), ("rotation", ["z"], .number(let v)): e.z = v
        case ("rotation", ["x"], .number(let v)): e.x = v
        case ("rotation", ["y"], .number(let v)): e.y = v
        case ("scale", [], .number(let v)): (d.scale[0], d.scale[1]) = (v, v)
        case ("scale", ["x"], .number(let v)): d.scale[0] = v
        case ("scale", ["y"], .number(let v)): d.scale[1] = v
        case ("scale", ["z"], .number(let v)): d.scale[2] = v
        case ("translation", [], .size(let v)): (d.translation[0], d.translation[1]) = (v.width, v.height)
        case ("translation", ["x"], .number(let v)): d.translation[0] = v
        case ("translation", ["y"], .number(let v)): d.translation[1] = v
        case ("translation", ["z"], .number(let v)): d.translation[2] = v
        default: return nil
        }
        let r = Transform3D(rotationAngle: e.x, x: 1, y: 0, z: 0).concatenating(Transform3D(rotationAngle: e.y, x: 0, y: 1, z: 0))
            .concatenating(Transform3D(rotationAngle: e.z, x: 0, y: 0, z: 1))
        d.rotation = DecomposedTransform3D.quaternion([[r.m11, r.m12, r.m13], [r.m21, r.m22, r.m23], [r.m31, r.m32, r.m33]])
        return d.transform
    }
}
