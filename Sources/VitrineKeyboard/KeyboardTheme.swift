import VitrineCore

/// How a screen keyboard looks and moves: `[osk]`'s theme keys.
public struct KeyboardTheme: Sendable, Hashable {
    /// Behind the keys.
    public var background = Color(red: 28 / 255, green: 31 / 255, blue: 36 / 255)
    /// A character key, a special key (Shift, Enter, ⌫, the layout key), a key held down.
    public var key = Color(red: 69 / 255, green: 74 / 255, blue: 84 / 255)
    public var specialKey = Color(red: 46 / 255, green: 51 / 255, blue: 57 / 255)
    public var pressedKey = Color(red: 89 / 255, green: 140 / 255, blue: 230 / 255)
    /// The labels.
    public var label = Color.white
    /// The labels' font family (fontconfig's name); the size follows the key height.
    public var font = "DejaVu Sans"
    public var cornerRadius = 6.0
    /// Pixels between keys and around them.
    public var spacing = 6.0
    /// The keyboard's height in pixels; 0 for 40 % of the output's height.
    public var height = 0.0
    /// How long sliding in or out takes, in seconds, and its curve.
    public var duration = 0.25
    public var timing = TimingFunction.easeOut

    public init() {}

    /// The height on an output `outputHeight` pixels high.
    public func height(onOutputOfHeight outputHeight: Double) -> Double {
        min(outputHeight, height > 0 ? height : (outputHeight * 0.4).rounded())
    }
}

/// Where each key of a layout is in a keyboard `size` big: rows of equal height, keys of
/// one unit width each (a key's `width` units wide), shorter rows centred.
public struct KeyGeometry: Sendable, Hashable {
    public let size: Size
    /// Each key's place in the keyboard, row by row: its row, its index in the row, its frame.
    public let frames: [(row: Int, column: Int, frame: Rect)]

    public static func == (a: KeyGeometry, b: KeyGeometry) -> Bool {
        a.size == b.size && a.frames.map(\.frame) == b.frames.map(\.frame)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(frames.map(\.frame)) }

    public init(layout: KeyboardLayout, size: Size, spacing: Double) {
        self.size = size
        let rows = layout.rows
        let units = rows.map { $0.reduce(0) { $0 + $1.width } }.max() ?? 1
        let unit = (size.width - spacing) / max(units, 1)
        let rowHeight = (size.height - spacing) / Double(max(rows.count, 1))
        var frames: [(Int, Int, Rect)] = []
        for (r, row) in rows.enumerated() {
            let rowUnits = row.reduce(0) { $0 + $1.width }
            var x = spacing + (units - rowUnits) * unit / 2
            for (c, key) in row.enumerated() {
                let frame = Rect(
                    x: x.rounded(), y: (spacing + Double(r) * rowHeight).rounded(), width: (key.width * unit - spacing).rounded(),
                    height: (rowHeight - spacing).rounded())
                frames.append((r, c, frame))
                x += key.width * unit
            }
        }
        self.frames = frames
    }

    /// The index (in `frames`) of the key at `point` (the keyboard's coordinates): the one
    /// whose frame, grown by half the spacing, holds it.
    public func key(at point: Point, spacing: Double) -> Int? {
        frames.firstIndex { entry in
            let f = entry.frame
            return Rect(x: f.origin.x - spacing / 2, y: f.origin.y - spacing / 2, width: f.size.width + spacing, height: f.size.height + spacing).contains(
                point)
        }
    }
}
