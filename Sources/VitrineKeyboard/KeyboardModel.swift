import VitrineCore

/// What the screen keyboard typed.
public enum Typed: Sendable, Hashable {
    /// Characters to insert.
    case text(String)
    /// Delete the character before the cursor; a new line or submit; move the cursor.
    case backspace, enter, left, right

    /// The name `osk.key` events give the key ("backspace", "enter", "left", "right");
    /// nil for text.
    public var keyName: String? {
        switch self {
        case .text: nil
        case .backspace: "backspace"
        case .enter: "enter"
        case .left: "left"
        case .right: "right"
        }
    }
}

/// When held keys repeat and a long press shows accents, in seconds.
public struct KeyboardTiming: Sendable, Hashable {
    public var repeatDelay = 0.6
    /// Seconds between repeats; 0 never repeats.
    public var repeatInterval = 0.04
    public var longPress = 0.5

    public init() {}
}

/// A screen keyboard's state: its layouts, Shift, the keys held by each touch, repeats
/// and the accents popup. Touches come in (the keyboard's coordinates, media time) and
/// what they type comes out; nothing here draws (`KeyboardView` does) or keeps time
/// (`advance(to:)` is called when `nextDeadline` passes).
///
/// A character key types when pressed, or, when it has accents, when released unless a
/// long press opened the accents popup: then the accent under the touch when it lifts.
/// Backspace, space, the arrows and keys without accents repeat while held. Shift holds
/// for one character; the layout key goes to the next layout.
public final class KeyboardModel {
    public let layouts: [KeyboardLayout]
    public private(set) var layoutIndex = 0
    public private(set) var shifted = false
    public private(set) var geometry: KeyGeometry
    public let spacing: Double
    public let timing: KeyboardTiming
    /// Counts changes of layout and Shift: the labels to draw change with it.
    public private(set) var revision = 0

    /// A touch on a key.
    struct Press {
        var key: Int
        var nextRepeat: Double?
        var longPressAt: Double?
        var popup: Popup?
    }

    /// The accents a long press offers above its key: the choices, their frames (the
    /// keyboard's coordinates), the one under the touch.
    public struct Popup: Sendable, Hashable {
        public let key: Int
        public let choices: [String]
        public let frames: [Rect]
        public var selected: Int?
    }

    private var presses: [Int: Press] = [:]

    /// `layouts` (at least one) in a keyboard `size` big.
    public init(layouts: [KeyboardLayout], size: Size, spacing: Double, timing: KeyboardTiming) {
        precondition(!layouts.isEmpty, "a keyboard has a layout")
        self.layouts = layouts
        self.spacing = spacing
        self.timing = timing
        geometry = KeyGeometry(layout: layouts[0], size: size, spacing: spacing)
    }

    public var layout: KeyboardLayout { layouts[layoutIndex] }

    /// The keys in `geometry`'s order.
    public var keys: [Key] { layout.rows.flatMap { $0 } }

    /// The keys held down.
    public var pressedKeys: Set<Int> { Set(presses.values.map(\.key)) }

    /// The accents popup shown (the latest touch's), if any.
    public var popup: Popup? { presses.values.compactMap(\.popup).first }

    /// Whether `touch` is the keyboard's (it went down on a key).
    public func owns(_ touch: Int) -> Bool { presses[touch] != nil }

    /// The next time `advance(to:)` has something to do: a repeat or a long press.
    public var nextDeadline: Double? {
        presses.values.compactMap { press in [press.nextRepeat, press.longPressAt].compactMap { $0 }.min() }.min()
    }

    /// The keyboard is `size` big now.
    public func resize(to size: Size) {
        geometry = KeyGeometry(layout: layout, size: size, spacing: spacing)
        presses.removeAll()
    }

    /// Shows the layout `index` (touches held are dropped).
    public func select(layout index: Int) {
        guard layouts.indices.contains(index) else { return }
        layoutIndex = index
        shifted = false
        presses.removeAll()
        geometry = KeyGeometry(layout: layout, size: geometry.size, spacing: spacing)
        revision += 1
    }

    /// A touch down at `point`: returns what it typed, and whether it was on the keyboard
    /// (else it is not the keyboard's).
    public func down(_ touch: Int, at point: Point, time: Double) -> (typed: [Typed], taken: Bool) {
        guard let index = geometry.key(at: point, spacing: spacing) else { return ([], false) }
        let key = keys[index]
        var press = Press(key: index)
        var typed: [Typed] = []
        switch key.action {
        case .character(let plain, let upper):
            let text = shifted ? upper : plain
            if Accents.accents(of: text, shifted: shifted).isEmpty {
                typed = type(text)
            } else {
                press.longPressAt = time + timing.longPress
            }
        case .shift:
            shifted.toggle()
            revision += 1
        case .nextLayout:
            select(layout: (layoutIndex + 1) % layouts.count)
            return ([], true)
        case .space: typed = [.text(" ")]
        case .backspace: typed = [.backspace]
        case .enter: typed = [.enter]
        case .left: typed = [.left]
        case .right: typed = [.right]
        }
        if key.repeats(accents: press.longPressAt != nil), timing.repeatInterval > 0 { press.nextRepeat = time + timing.repeatDelay }
        presses[touch] = press
        return (typed, true)
    }

    /// The touch moved to `point`: over the accents popup, it selects the one under it.
    public func moved(_ touch: Int, to point: Point) {
        guard var popup = presses[touch]?.popup else { return }
        popup.selected = popup.frames.firstIndex { $0.contains(point) }
        presses[touch]?.popup = popup
    }

    /// The touch lifted (`cancelled`: it was taken away, nothing is typed).
    public func up(_ touch: Int, cancelled: Bool = false) -> [Typed] {
        guard let press = presses.removeValue(forKey: touch), !cancelled else { return [] }
        if let popup = press.popup { return popup.selected.map { type(popup.choices[$0]) } ?? [] }
        if press.longPressAt != nil, case .character(let plain, let upper) = keys[press.key].action { return type(shifted ? upper : plain) }
        return []
    }

    /// Repeats and long presses due by `time`.
    public func advance(to time: Double) -> [Typed] {
        var typed: [Typed] = []
        for touch in presses.keys.sorted() {
            guard var press = presses[touch] else { continue }
            if let at = press.longPressAt, at <= time {
                press.longPressAt = nil
                press.popup = popup(for: press.key)
            }
            var count = 0
            while let next = press.nextRepeat, next <= time, count < 100 {
                typed += repeated(keys[press.key])
                press.nextRepeat = next + timing.repeatInterval
                count += 1
            }
            if let next = press.nextRepeat, next <= time { press.nextRepeat = time + timing.repeatInterval }
            presses[touch] = press
        }
        return typed
    }

    /// Drops every touch (the keyboard hides).
    public func reset() {
        presses.removeAll()
        if shifted {
            shifted = false
            revision += 1
        }
    }

    private func type(_ text: String) -> [Typed] {
        if shifted {
            shifted = false
            revision += 1
        }
        return [.text(text)]
    }

    private func repeated(_ key: Key) -> [Typed] {
        switch key.action {
        case .character(let plain, _): [.text(plain)]
        case .space: [.text(" ")]
        case .backspace: [.backspace]
        case .left: [.left]
        case .right: [.right]
        case .enter, .shift, .nextLayout: []
        }
    }

    /// The accents popup over key `index`: one cell per choice, as big as the key, in a
    /// row above it that stays within the keyboard's width.
    private func popup(for index: Int) -> Popup? {
        guard case .character(let plain, let upper) = keys[index].action else { return nil }
        let choices = Accents.accents(of: shifted ? upper : plain, shifted: shifted)
        let key = geometry.frames[index].frame
        let step = key.size.width + spacing
        let width = Double(choices.count) * step - spacing
        let x = max(spacing, min(key.origin.x, geometry.size.width - spacing - width))
        let y = key.origin.y - key.size.height - spacing
        let frames = choices.indices.map { Rect(x: x + Double($0) * step, y: y, width: key.size.width, height: key.size.height) }
        return Popup(key: index, choices: choices, frames: frames, selected: 0)
    }
}
