/// The part of a slot's value that an animation's key path names past the property
/// (`position.y`, `transform.rotation.z`), resolved once when the animation is attached,
/// so that a frame reads and sets it without comparing strings.
///
/// It stands for the part of one value type (a point, a size, a plane transform). A slot
/// holding another type (a transform that is not affine, say) is read and set through
/// `Value.component(_:)` and `Value.settingComponent(_:to:)`, as the path's strings say;
/// where it applies, it gives what those give.
enum SlotComponent: Sendable {
    case x, y, width, height
    case rotation, scale, scaleX, scaleY, translation, translationX, translationY

    /// The part `path` names; nil for paths it does not stand for.
    init?(_ path: [String]) {
        switch (path.first, path.count > 1 ? path[1] : nil, path.count) {
        case ("x", nil, 1): self = .x
        case ("y", nil, 1): self = .y
        case ("width", nil, 1): self = .width
        case ("height", nil, 1): self = .height
        case ("rotation", nil, 1), ("rotation", "z", 2): self = .rotation
        case ("scale", nil, 1): self = .scale
        case ("scale", "x", 2): self = .scaleX
        case ("scale", "y", 2): self = .scaleY
        case ("translation", nil, 1): self = .translation
        case ("translation", "x", 2): self = .translationX
        case ("translation", "y", 2): self = .translationY
        default: return nil
        }
    }

    /// Replaces the part in `value` with what `change` makes of it; a new part of the
    /// wrong type leaves `value` as it was. False, calling nothing, when `value` is not
    /// of the type the part belongs to.
    func update(_ value: inout Value, _ change: (Value) -> Value) -> Bool {
        switch (self, value) {
        case (.x, .point(var p)):
            if let v = change(.number(p.x)).number { p.x = v; value = .point(p) }
        case (.y, .point(var p)):
            if let v = change(.number(p.y)).number { p.y = v; value = .point(p) }
        case (.width, .size(var s)):
            if let v = change(.number(s.width)).number { s.width = v; value = .size(s) }
        case (.height, .size(var s)):
            if let v = change(.number(s.height)).number { s.height = v; value = .size(s) }
        case (.rotation, .transform(let t)), (.scale, .transform(let t)), (.scaleX, .transform(let t)), (.scaleY, .transform(let t)),
            (.translation, .transform(let t)), (.translationX, .transform(let t)), (.translationY, .transform(let t)):
            var d = DecomposedTransform(t)
            switch (self, change(read(d))) {
            case (.rotation, .number(let v)): d.rotation = v
            case (.scale, .number(let v)): d.scale = Size(width: v, height: v)
            case (.scaleX, .number(let v)): d.scale.width = v
            case (.scaleY, .number(let v)): d.scale.height = v
            case (.translation, .size(let v)): d.translation = v
            case (.translationX, .number(let v)): d.translation.width = v
            case (.translationY, .number(let v)): d.translation.height = v
            default: return true
            }
            value = .transform(d.transform)
        default:
            return false
        }
        return true
    }

    /// The part of a plane transform taken apart as `d`.
    private func read(_ d: DecomposedTransform) -> Value {
        switch self {
        case .rotation: .number(d.rotation)
        case .scale: .number((d.scale.width + d.scale.height) / 2)
        case .scaleX: .number(d.scale.width)
        case .scaleY: .number(d.scale.height)
        case .translation: .size(d.translation)
        case .translationX: .number(d.translation.width)
        case .translationY: .number(d.translation.height)
        case .x, .y, .width, .height: .number(0)
        }
    }
}
