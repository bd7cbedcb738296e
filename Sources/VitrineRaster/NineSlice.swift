import VitrineCore

/// Nine-slice drawing (Core Animation's `contentsCenter`): the corners of an image keep
/// their size, its edges stretch along one axis and its centre along both.
public enum NineSlice {
    /// One slice: the part of the image (image pixels) and where it goes (layer space).
    public struct Piece: Sendable, Equatable {
        public var from: Rect
        public var to: Rect
    }

    /// The slices of `source` (image pixels) drawn into `rect` (layer space). `center` is
    /// the stretching part in unit coordinates of `source`; the parts around it keep
    /// `pointsPerPixel` layer units per image pixel, shrunk together when `rect` is too
    /// small to hold them. Empty slices are left out.
    ///
    /// ```swift
    /// NineSlice.pieces(source: Rect(x: 0, y: 0, width: 30, height: 30),
    ///                  center: Rect(x: 1.0 / 3, y: 1.0 / 3, width: 1.0 / 3, height: 1.0 / 3),
    ///                  pointsPerPixel: (1, 1), into: Rect(x: 0, y: 0, width: 100, height: 40))
    /// // nine pieces; the top-left one is [0, 0, 10, 10] → [0, 0, 10, 10]
    /// ```
    public static func pieces(source: Rect, center: Rect, pointsPerPixel: (x: Double, y: Double), into rect: Rect) -> [Piece] {
        let xs = cuts(source.minX, source.width, center.minX, center.maxX, pointsPerPixel.x, rect.minX, rect.width)
        let ys = cuts(source.minY, source.height, center.minY, center.maxY, pointsPerPixel.y, rect.minY, rect.height)
        var pieces: [Piece] = []
        pieces.reserveCapacity(9)
        for row in 0..<3 {
            for column in 0..<3 {
                let to = Rect(x: xs.to[column], y: ys.to[row], width: xs.to[column + 1] - xs.to[column], height: ys.to[row + 1] - ys.to[row])
                let from = Rect(
                    x: xs.from[column], y: ys.from[row], width: xs.from[column + 1] - xs.from[column], height: ys.from[row + 1] - ys.from[row])
                guard to.width > 0, to.height > 0, from.width > 0, from.height > 0 else { continue }
                pieces.append(Piece(from: from, to: to))
            }
        }
        return pieces
    }

    /// The four cut positions along one axis in the image and in the layer.
    private static func cuts(
        _ origin: Double, _ length: Double, _ low: Double, _ high: Double, _ scale: Double, _ start: Double, _ extent: Double
    ) -> (from: [Double], to: [Double]) {
        let lo = min(1, max(0, low)), hi = min(1, max(lo, high))
        var a = origin + lo * length, b = origin + hi * length
        if b - a < 1e-3 {
            // A centre of no width stretches the image's line there.
            let middle = (a + b) / 2
            (a, b) = (middle - 5e-4, middle + 5e-4)
        }
        var head = (a - origin) * scale, tail = (origin + length - b) * scale
        if head + tail > extent, head + tail > 0 {
            let shrink = extent / (head + tail)
            (head, tail) = (head * shrink, tail * shrink)
        }
        return ([origin, a, b, origin + length], [start, start + head, start + extent - tail, start + extent])
    }
}

extension Surface {
    /// Draws the part `source` (image pixels) of `image` into `rect` (layer space) as
    /// `NineSlice.pieces` cuts it, through `transform`, OVER this surface with `opacity`.
    public func draw(
        image: Surface, in rect: Rect, from source: Rect, center: Rect, pointsPerPixel: (x: Double, y: Double),
        transform: AffineTransform = .identity, opacity: Double = 1, clip: Clip? = nil
    ) {
        for piece in NineSlice.pieces(source: source, center: center, pointsPerPixel: pointsPerPixel, into: rect) {
            draw(image: image, in: piece.to, from: piece.from, transform: transform, opacity: opacity, clip: clip)
        }
    }
}
