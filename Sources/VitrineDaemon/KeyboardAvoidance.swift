import VitrineConfig
import VitrineCore

/// A layer moved up, or made shorter, so that a text field on it stays above the screen
/// keyboard (`[osk] avoid`), with the values it had, to put them back when the keyboard
/// hides. The layer is the root's topmost sublayer under the field's centre (a window's
/// surface layer, a script's page); a surface layer made shorter resizes its window.
struct KeyboardAvoidance {
    let layer: String
    private let saved: [(key: KeyPath, value: Value)]

    /// What keeps `field` (the root's coordinates) above `top` (the keyboard's top edge, with
    /// `margin` between): the changes are added to `tx`, which slides the keyboard in. Nil
    /// when the field is clear of the keyboard, `mode` is `.none`, or no layer holds it.
    static func make(
        keeping field: Rect, above top: Double, margin: Double, mode: Configuration.ScreenKeyboard.Avoid, in scene: Scene, root: String,
        skipping keyboard: String, at time: Double, into tx: inout Transaction
    ) -> KeyboardAvoidance? {
        let overlap = field.origin.y + field.size.height + margin - top
        guard mode != .none, overlap > 0, let layer = layer(at: Point(x: field.midX, y: field.midY), in: scene, root: root, skipping: keyboard, at: time),
            case .point(let position)? = try? scene.modelValue("position", of: layer), case .rect(let bounds)? = try? scene.modelValue("bounds", of: layer),
            case .point(let anchor)? = try? scene.modelValue("anchorPoint", of: layer)
        else { return nil }
        switch mode {
        case .move:
            tx.set(layer, "position", .point(Point(x: position.x, y: position.y - overlap)))
            return KeyboardAvoidance(layer: layer, saved: [("position", .point(position))])
        case .resize:
            let shorter = max(1, bounds.size.height - overlap)
            let lost = bounds.size.height - shorter
            tx.set(layer, "bounds", .rect(Rect(x: bounds.origin.x, y: bounds.origin.y, width: bounds.size.width, height: shorter)))
            tx.set(layer, "position", .point(Point(x: position.x, y: position.y - lost * (1 - anchor.y))))
            return KeyboardAvoidance(layer: layer, saved: [("bounds", .rect(bounds)), ("position", .point(position))])
        case .none:
            return nil
        }
    }

    /// Puts the layer's values back (in `tx`, which slides the keyboard out), if it is still there.
    func restore(in scene: Scene, into tx: inout Transaction) {
        guard scene.contains(layer) else { return }
        for (key, value) in saved { tx.set(layer, key, value) }
    }

    /// The root's topmost sublayer other than `keyboard` whose bounds hold `point`.
    private static func layer(at point: Point, in scene: Scene, root: String, skipping keyboard: String, at time: Double) -> String? {
        let candidates = ((try? scene.sublayers(of: root)) ?? []).reversed().filter { $0 != keyboard }
        return candidates.first { id in
            guard let local = scene.convert(point, fromRoot: root, to: id, at: time),
                case .rect(let bounds)? = try? scene.presentationValue("bounds", of: id, at: time)
            else { return false }
            return bounds.contains(local)
        }
    }
}
