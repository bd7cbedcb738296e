extension Configuration {
    /// `[wall]`: a video wall. The scene is laid out once on a canvas larger than any
    /// screen, and each screen shows its rectangle of it (docs/FLEET.md).
    ///
    /// ```toml
    /// [wall]
    /// canvas = [3840, 2160]
    /// viewport = [1920, 0, 1920, 1080]
    /// ```
    public struct Wall: Sendable, Hashable {
        /// `canvas`: the whole wall's [width, height] in canvas pixels, each 1…65536; nil
        /// (`[]`, the default) for no wall.
        public var canvas: PixelSize?
        /// `viewport`: the primary output's rectangle of the canvas; nil (`[]`, the
        /// default) when it has none, or gives its own in its `[[outputs]]` table.
        public var viewport: Viewport?

        /// No wall.
        public init() {}
    }

    /// A screen's rectangle of the wall's canvas, in canvas pixels, written
    /// `[x, y, width, height]`: the screen shows the canvas from (x, y), one canvas pixel
    /// to a screen pixel, so its width and height are the screen's.
    public struct Viewport: Sendable, Hashable, CustomStringConvertible {
        /// The canvas point shown at the screen's top-left pixel.
        public var x, y: Int
        /// The screen's size in pixels.
        public var width, height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }

        /// `[x, y, width, height]`, as the file writes it.
        public var description: String { "[\(x), \(y), \(width), \(height)]" }

        /// Reads `[x, y, width, height]`: whole numbers, x and y at least 0, width and
        /// height 1…16384.
        static func reading(_ node: TOMLNode) -> Viewport? {
            guard let items = node.array, items.count == 4 else { return nil }
            let numbers = items.compactMap { item -> Int? in if case .integer(let i) = item { i } else { nil } }
            guard numbers.count == 4, numbers[0] >= 0, numbers[1] >= 0, numbers[0] <= 65536, numbers[1] <= 65536,
                (1...16384).contains(numbers[2]), (1...16384).contains(numbers[3])
            else { return nil }
            return Viewport(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        }
    }
}

extension Configuration.Wall {
    static let keys = ["canvas", "viewport"]

    /// How a viewport is written, for messages.
    static let viewportForm =
        "[x, y, width, height] in canvas pixels (whole numbers; width and height the screen's), such as [1920, 0, 1920, 1080], or [] for none"

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        canvas = try r.value("canvas", canvas, expected: "[width, height] in canvas pixels (1…65536 each), such as [3840, 2160], or [] for no wall") {
            guard let items = $0.array else { return nil }
            if items.isEmpty { return .some(nil) }
            let numbers = items.compactMap { item -> Int? in if case .integer(let i) = item { i } else { nil } }
            guard numbers.count == 2, items.count == 2, numbers.allSatisfy({ (1...65536).contains($0) }) else { return nil }
            return .some(PixelSize(width: numbers[0], height: numbers[1]))
        }
        viewport = try r.value("viewport", viewport, expected: Self.viewportForm) {
            $0.array?.isEmpty == true ? .some(nil) : Configuration.Viewport.reading($0).map { .some($0) }
        }
    }
}

extension Configuration {
    /// Checks the wall against the outputs: every viewport lies on the canvas, has the
    /// size of its output's fixed mode, and shows the same root layer as the others; a
    /// canvas has at least one viewport and a viewport a canvas.
    func checkWall(_ top: TableReader) throws(ConfigError) {
        let viewports = outputs.enumerated().compactMap { i, entry in entry.viewport.map { (key: "outputs[\(i)].viewport", index: i, $0) } }
        if let primary = wall.viewport, outputs.first?.viewport != nil {
            throw top.context.error(
                "wall.viewport", "outputs[0] gives the primary output's viewport already (\(primary) here); give it in one place, not both")
        }
        let all = (wall.viewport.map { [(key: "wall.viewport", index: 0, $0)] } ?? []) + viewports
        guard let canvas = wall.canvas else {
            if let first = all.first {
                throw top.context.error(first.key, "a viewport is a rectangle of the wall's canvas: set [wall] canvas = [width, height] too")
            }
            return
        }
        guard !all.isEmpty else {
            throw top.context.error(
                "wall.canvas",
                "a wall needs this device's rectangle of the canvas: set [wall] viewport = [x, y, width, height] (the primary output's), or viewport in [[outputs]] tables"
            )
        }
        for (key, index, v) in all {
            guard v.x + v.width <= canvas.width, v.y + v.height <= canvas.height else {
                throw top.context.error(
                    key,
                    "\(v) reaches past the canvas, which is \(canvas.width)x\(canvas.height); a viewport lies within [0, 0, \(canvas.width), \(canvas.height)]")
            }
            guard index < outputs.count, case .fixed(var size, _) = outputs[index].mode else { continue }
            if outputs[index].rotation == .quarter || outputs[index].rotation == .threeQuarters { size = PixelSize(width: size.height, height: size.width) }
            guard size.width == v.width, size.height == v.height else {
                throw top.context.error(
                    key,
                    "\(v) is \(v.width)x\(v.height) but output \(outputs[index].connector) shows \(size) (its mode, turned by its rotation); a viewport is one canvas pixel to a screen pixel, so give it the output's size"
                )
            }
        }
        if !outputs.isEmpty, let first = all.first {
            let named = outputs[first.index].root
            let root = !named.isEmpty ? named : first.index == 0 ? "root" : outputs[first.index].connector
            for (_, index, _) in all.dropFirst() where !outputs[index].root.isEmpty && outputs[index].root != root {
                throw top.context.error(
                    "outputs[\(index)].root",
                    "the outputs with a viewport all show the wall's canvas, one root layer: '\(root)', the root of outputs[\(first.index)]; leave root out of the others"
                )
            }
        }
        for (_, index, _) in all.dropFirst() where index < outputs.count && outputs[index].scene != nil {
            throw top.context.error(
                "outputs[\(index)].scene",
                "the wall's canvas shows one scene: give it in [scene] or in the first output with a viewport (outputs[\(all[0].index)]), not in the others")
        }
    }
}
