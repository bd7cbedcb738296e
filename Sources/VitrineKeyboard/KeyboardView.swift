import VitrineCore

/// The screen keyboard's layers: what they are made of, and the transactions that build
/// them, slide them in and out, and show what the model changed (keys held, Shift and
/// the layout's labels, the accents popup). Every layer's id starts with `prefix`.
///
/// ```
/// osk                    the keyboard: its background, as wide as the output
/// ├─ osk:key:0 … N       a key: its colour and corners
/// │  └─ osk:label:0 … N  its label (a text layer)
/// └─ osk:popup           the accents popup, while one is open
///    ├─ osk:popup:panel  its background
///    └─ osk:accent:0 …   a choice, with its label osk:accent:0:label
/// ```
public struct KeyboardView {
    public let theme: KeyboardTheme
    /// The keyboard's root layer id; the others start with it and ':'.
    public let prefix: String
    /// What the layers show now.
    private var shown: (keys: Set<Int>, revision: Int, popup: KeyboardModel.Popup?)
    /// How many key layers there are.
    private var keyCount = 0

    public init(theme: KeyboardTheme, prefix: String = "osk") {
        self.theme = theme
        self.prefix = prefix
        shown = ([], -1, nil)
    }

    /// The keyboard's position (its centre) in its parent when shown or hidden, on an
    /// output `output` big.
    public func position(shown: Bool, size: Size, output: Size) -> Point {
        Point(x: output.width / 2, y: shown ? output.height - size.height / 2 : output.height + size.height / 2)
    }

    /// Adds the keyboard under `parent`, on top of its sublayers, hidden below the
    /// output's bottom edge.
    public mutating func build(_ model: KeyboardModel, under parent: String, output: Size) -> Transaction {
        var tx = Transaction(disableActions: true)
        let size = model.geometry.size
        let at = position(shown: false, size: size, output: output)
        tx.add(
            layer: prefix, parent: parent,
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: size.width, height: size.height)), "position": .point(at),
                "backgroundColor": .color(theme.background), "shouldRasterize": .bool(true),
            ])
        addKeys(model, to: &tx)
        shown = ([], model.revision, nil)
        return tx
    }

    /// Moves the keyboard in (`shown`) or out from where it is now, with the theme's
    /// duration and curve.
    public func slide(shown: Bool, size: Size, output: Size) -> Transaction {
        var tx = Transaction(animationDuration: theme.duration, timingFunction: theme.timing, disableActions: theme.duration <= 0, isAnimated: true)
        tx.set(prefix, "position", .point(position(shown: shown, size: size, output: output)))
        return tx
    }

    /// Removes every layer of the keyboard.
    public func remove() -> Transaction {
        var tx = Transaction()
        tx.remove(layer: prefix)
        return tx
    }

    /// What changed in `model` since the layers were drawn: nil when nothing did.
    public mutating func update(_ model: KeyboardModel) -> Transaction? {
        var tx = Transaction(disableActions: true)
        if model.revision != shown.revision {
            for index in 0..<keyCount { tx.remove(layer: keyID(index)) }
            if shown.popup != nil { tx.remove(layer: "\(prefix):popup") }
            addKeys(model, to: &tx)
            shown = ([], model.revision, nil)
        }
        let pressed = model.pressedKeys
        let keys = model.keys
        for index in pressed.symmetricDifference(shown.keys) where keys.indices.contains(index) {
            tx.set(keyID(index), "backgroundColor", .color(colour(of: keys[index], pressed: pressed.contains(index))))
        }
        let popup = model.popup
        if popup != shown.popup {
            if shown.popup != nil { tx.remove(layer: "\(prefix):popup") }
            if let popup { addPopup(popup, keyHeight: model.geometry.frames[popup.key].frame.size.height, to: &tx) }
        }
        shown = (pressed, model.revision, popup)
        return tx.operations.isEmpty ? nil : tx
    }

    public func keyID(_ index: Int) -> String { "\(prefix):key:\(index)" }

    private func colour(of key: Key, pressed: Bool) -> Color {
        pressed ? theme.pressedKey : key.isSpecial ? theme.specialKey : theme.key
    }

    private mutating func addKeys(_ model: KeyboardModel, to tx: inout Transaction) {
        keyCount = model.keys.count
        let next = model.layouts[(model.layoutIndex + 1) % model.layouts.count].shortName
        for (index, key) in model.keys.enumerated() {
            let frame = model.geometry.frames[index].frame
            let id = keyID(index)
            tx.add(layer: id, parent: prefix, properties: keyProperties(frame, colour: colour(of: key, pressed: false)))
            label(key.label(shifted: model.shifted, nextLayout: next), id: "\(prefix):label:\(index)", in: frame, parent: id, to: &tx)
        }
    }

    private func addPopup(_ popup: KeyboardModel.Popup, keyHeight: Double, to tx: inout Transaction) {
        let id = "\(prefix):popup"
        tx.add(layer: id, parent: prefix, properties: [:])
        let first = popup.frames[0], last = popup.frames[popup.frames.count - 1]
        let pad = max(theme.spacing, 2)
        let panel = Rect(
            x: first.origin.x - pad, y: first.origin.y - pad, width: last.origin.x + last.size.width - first.origin.x + 2 * pad,
            height: first.size.height + 2 * pad)
        tx.add(
            layer: id + ":panel", parent: id,
            properties: [
                "bounds": .rect(Rect(origin: .zero, size: panel.size)), "position": .point(Point(x: panel.midX, y: panel.midY)),
                "backgroundColor": .color(theme.background), "cornerRadius": .number(theme.cornerRadius + pad / 2),
                "shadowOpacity": .number(0.5), "shadowRadius": .number(6),
            ])
        for (index, frame) in popup.frames.enumerated() {
            let cell = "\(prefix):accent:\(index)"
            tx.add(layer: cell, parent: id, properties: keyProperties(frame, colour: index == popup.selected ? theme.pressedKey : theme.key))
            label(popup.choices[index], id: cell + ":label", in: frame, parent: cell, to: &tx)
        }
    }

    private func keyProperties(_ frame: Rect, colour: Color) -> [String: Value] {
        [
            "bounds": .rect(Rect(origin: .zero, size: frame.size)), "position": .point(Point(x: frame.midX, y: frame.midY)),
            "backgroundColor": .color(colour), "cornerRadius": .number(theme.cornerRadius),
        ]
    }

    /// A label centred in a key `frame` big.
    private func label(_ text: String, id: String, in frame: Rect, parent: String, to tx: inout Transaction) {
        guard !text.isEmpty else { return }
        let size = (min(frame.size.height * 0.45, frame.size.width * (text.count > 1 ? 0.3 : 0.55))).rounded()
        let height = (size * 1.3).rounded()
        tx.add(
            layer: id, kind: "text", parent: parent,
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: frame.size.width, height: height)),
                "position": .point(Point(x: frame.size.width / 2, y: frame.size.height / 2)), "string": .string(text), "font": .string(theme.font),
                "fontSize": .number(size), "foregroundColor": .color(theme.label), "alignmentMode": .string("center"),
            ])
    }
}
