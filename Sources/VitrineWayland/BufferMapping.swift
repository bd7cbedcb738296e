import VitrineCore
import VitrineRaster

/// How a surface's buffer lands on the surface and back: `wl_surface`'s buffer transform
/// and buffer scale, then `wp_viewport`'s crop (source) and scale (destination), in that
/// order, as the protocols define. It gives the surface's size, damage and points in
/// either space, and the affine transform that draws the buffer in surface coordinates.
///
/// ```swift
/// let mapping = try BufferMapping(bufferWidth: 200, bufferHeight: 100, scale: 2, transform: .rotated90)
/// mapping.surfaceSize                                           // 50 × 100
/// mapping.surfaceRect(ofBuffer: PixelRect(x: 0, y: 0, width: 200, height: 100))  // (0, 0, 50, 100)
/// ```
public struct BufferMapping: Hashable, Sendable {
    /// `wl_output.transform`: how the client already turned its buffer's contents
    /// (rotations counter-clockwise; the flipped ones mirrored around the vertical axis
    /// first), which drawing undoes.
    public enum Transform: Int, Sendable, CaseIterable {
        case normal, rotated90, rotated180, rotated270, flipped, flipped90, flipped180, flipped270

        /// Whether the buffer's width is the surface's height.
        public var swapsAxes: Bool { rawValue & 1 == 1 }
    }

    /// Why a surface's state cannot be applied (each a protocol error of the request
    /// named).
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// `wl_surface.invalid_size`: the buffer is not a whole number of scale units.
        case sizeNotMultipleOfScale(width: Int, height: Int, scale: Int)
        /// `wp_viewport.bad_size`: a source of fractional size without a destination.
        case fractionalSourceWithoutDestination(Rect)
        /// `wp_viewport.out_of_buffer`: the source reaches beyond the buffer.
        case sourceOutsideBuffer(Rect, width: Double, height: Double)

        public var description: String {
            switch self {
            case .sizeNotMultipleOfScale(let width, let height, let scale):
                "the \(width)×\(height) buffer is not a whole number of units of its buffer scale \(scale)"
            case .fractionalSourceWithoutDestination(let source):
                "the viewport's source \(source) has a fractional size and no destination size is set"
            case .sourceOutsideBuffer(let source, let width, let height):
                "the viewport's source \(source) reaches outside the buffer, \(Size(width: width, height: height)) after its transform and scale"
            }
        }
    }

    public let bufferWidth: Int
    public let bufferHeight: Int
    public let scale: Int
    public let transform: Transform
    /// The viewport's source rectangle, in the surface's coordinates before the crop
    /// (after transform and scale); nil: all of the buffer.
    public let source: Rect?
    /// The surface's size, in surface coordinates.
    public let surfaceWidth: Int
    public let surfaceHeight: Int
    /// Buffer pixels to surface coordinates.
    public let bufferToSurface: AffineTransform
    /// Surface coordinates to buffer pixels.
    public let surfaceToBuffer: AffineTransform

    /// The mapping of a `bufferWidth` × `bufferHeight` buffer with `scale` (≥ 1),
    /// `transform`, and a viewport's `source` and `destination` (nil: not set); throws
    /// what the protocols make an error.
    public init(
        bufferWidth: Int, bufferHeight: Int, scale: Int = 1, transform: Transform = .normal, source: Rect? = nil,
        destination: (width: Int, height: Int)? = nil
    ) throws(Failure) {
        guard bufferWidth % scale == 0, bufferHeight % scale == 0 else {
            throw .sizeNotMultipleOfScale(width: bufferWidth, height: bufferHeight, scale: scale)
        }
        let (turnedWidth, turnedHeight) = transform.swapsAxes ? (bufferHeight, bufferWidth) : (bufferWidth, bufferHeight)
        let logical = Size(width: Double(turnedWidth / scale), height: Double(turnedHeight / scale))
        if let source, source.maxX > logical.width || source.maxY > logical.height {
            throw .sourceOutsideBuffer(source, width: logical.width, height: logical.height)
        }
        let crop = source ?? Rect(origin: .zero, size: logical)
        if let destination {
            (surfaceWidth, surfaceHeight) = destination
        } else if let source {
            guard source.width == source.width.rounded(), source.height == source.height.rounded() else {
                throw .fractionalSourceWithoutDestination(source)
            }
            (surfaceWidth, surfaceHeight) = (Int(source.width), Int(source.height))
        } else {
            (surfaceWidth, surfaceHeight) = (turnedWidth / scale, turnedHeight / scale)
        }
        (self.bufferWidth, self.bufferHeight, self.scale, self.transform, self.source) = (bufferWidth, bufferHeight, scale, transform, source)
        // Turned buffer pixels (u, v) to buffer pixels: the inverse of what the client did.
        let (w, h) = (Double(turnedWidth), Double(turnedHeight))
        let turnedToBuffer: AffineTransform =
            switch transform {
            case .normal: .identity
            case .rotated90: AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
            case .rotated180: AffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
            case .rotated270: AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
            case .flipped: AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: w, ty: 0)
            case .flipped90: AffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
            case .flipped180: AffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h)
            case .flipped270: AffineTransform(a: 0, b: -1, c: -1, d: 0, tx: h, ty: w)
            }
        let s = 1 / Double(scale)
        let (sx, sy) = (Double(surfaceWidth) / crop.width, Double(surfaceHeight) / crop.height)
        let turnedToSurface = AffineTransform(a: s * sx, b: 0, c: 0, d: s * sy, tx: -crop.minX * sx, ty: -crop.minY * sy)
        surfaceToBuffer = turnedToSurface.inverted!.concatenating(turnedToBuffer)
        bufferToSurface = surfaceToBuffer.inverted!
    }

    public static func == (a: BufferMapping, b: BufferMapping) -> Bool {
        (a.bufferWidth, a.bufferHeight, a.scale, a.transform) == (b.bufferWidth, b.bufferHeight, b.scale, b.transform)
            && (a.source, a.surfaceWidth, a.surfaceHeight) == (b.source, b.surfaceWidth, b.surfaceHeight)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bufferWidth)
        hasher.combine(bufferHeight)
        hasher.combine(scale)
        hasher.combine(transform)
        hasher.combine(source)
        hasher.combine(surfaceWidth)
        hasher.combine(surfaceHeight)
    }

    /// The surface's rectangle, at the origin.
    public var surfaceBounds: PixelRect { PixelRect(x: 0, y: 0, width: surfaceWidth, height: surfaceHeight) }

    /// The buffer's rectangle.
    public var bufferBounds: PixelRect { PixelRect(x: 0, y: 0, width: bufferWidth, height: bufferHeight) }

    /// The part of the buffer shown (the viewport's source), in buffer pixels.
    public var bufferSource: Rect {
        surfaceToBuffer.boundingBox(of: Rect(x: 0, y: 0, width: Double(surfaceWidth), height: Double(surfaceHeight)))
    }

    /// Whether buffer pixels and surface coordinates are one.
    public var isIdentity: Bool { bufferToSurface.isIdentity && surfaceWidth == bufferWidth && surfaceHeight == bufferHeight }

    /// Whether the viewport stretches the buffer by other than whole scale units (then
    /// a changed buffer pixel reaches its neighbours on the surface through filtering).
    private var stretches: Bool {
        let (a, b, c, d) = (abs(bufferToSurface.a), abs(bufferToSurface.b), abs(bufferToSurface.c), abs(bufferToSurface.d))
        return [a, b, c, d].contains { $0 != 0 && $0 * Double(scale) != 1 }
    }

    /// The surface point showing buffer pixel position `point`.
    public func surfacePoint(ofBuffer point: Point) -> Point { bufferToSurface.apply(to: point) }

    /// The buffer pixel position shown at surface point `point`.
    public func bufferPoint(ofSurface point: Point) -> Point { surfaceToBuffer.apply(to: point) }

    /// The surface pixels that show part of buffer rectangle `rect` (damage_buffer's
    /// damage on the surface), within the surface.
    public func surfaceRect(ofBuffer rect: PixelRect) -> PixelRect {
        var covered = PixelRect(covering: bufferToSurface.boundingBox(of: rect.rect))
        if stretches { covered = PixelRect(x: covered.x - 1, y: covered.y - 1, width: covered.width + 2, height: covered.height + 2) }
        return covered.intersection(surfaceBounds)
    }

    /// The buffer pixels shown in surface rectangle `rect` (damage's damage in the
    /// buffer), within the buffer.
    public func bufferRect(ofSurface rect: PixelRect) -> PixelRect {
        var covered = PixelRect(covering: surfaceToBuffer.boundingBox(of: rect.rect))
        if stretches { covered = PixelRect(x: covered.x - 1, y: covered.y - 1, width: covered.width + 2, height: covered.height + 2) }
        return covered.intersection(bufferBounds)
    }
}
