import VitrineCore
import VitrineRaster

/// One surface of a window as it is drawn: its committed buffer, the part of it shown, and
/// where that part lies in the window.
///
/// A window is drawn as its picture's `pieces`, bottom first, each straight from its client's
/// buffer, so no picture of the whole window is ever composed. Window coordinates are the
/// root surface's (surface units; the xdg window geometry is a rectangle in them). A
/// piece maps buffer pixels into them by `toWindow`, an affine transform that keeps
/// rectangles axis-aligned: the surface's position, and where a buffer scale, a buffer
/// transform or a viewport apply, a scale, quarter turns and flips.
///
/// The surfaces of a window and their places (root, subsurfaces, popups or override-redirect
/// windows) come from `WindowPicture.stack()`, which input targeting reads too; a surface state that changes how
/// its buffer maps (scale, transform, viewport: its `BufferMapping`) changes
/// `SurfaceObject.piece(x:y:)`.
public struct WindowPiece {
    /// The buffer drawn.
    let buffer: ClientBuffer
    /// The part of the buffer drawn, in buffer pixels.
    public var source: Rect
    /// Buffer pixels → window coordinates.
    public var toWindow: AffineTransform

    /// Where `source` lands, in window coordinates.
    public var frame: Rect { toWindow.boundingBox(of: source) }

    /// Whether the buffer is XRGB: every pixel drawn is opaque.
    public var isOpaque: Bool { buffer.isOpaque }

    /// This piece cut to `window` (window coordinates); nil when nothing of it is inside.
    func clipped(to window: Rect) -> WindowPiece? {
        let frame = frame
        let inside = frame.intersection(window)
        guard !inside.isEmpty else { return nil }
        guard inside != frame else { return self }
        guard let back = toWindow.inverted else { return nil }
        var piece = self
        piece.source = back.boundingBox(of: inside).intersection(source)
        return piece.source.isEmpty ? nil : piece
    }

    /// Draws the piece OVER `target`, window coordinates mapped to `target`'s pixels by
    /// `toDevice`, reading the client's memory on this thread (the loop's). Only the
    /// source's pixels are sampled (a viewport's crop does not bleed in what is around it).
    func draw(on target: Surface, toDevice: AffineTransform, opacity: Double, clip: Clip?) {
        buffer.read { picture in
            let crop = PixelRect(covering: source).intersection(picture.bounds)
            guard !crop.isEmpty else { return }
            guard crop != picture.bounds else {
                target.draw(image: picture, in: source, from: source, transform: toWindow.concatenating(toDevice), opacity: opacity, clip: clip)
                return
            }
            let view = picture.view(of: crop)
            let part = source.offsetBy(dx: Double(-crop.x), dy: Double(-crop.y))
            let toCrop = AffineTransform(translationX: Double(crop.x), y: Double(crop.y)).concatenating(toWindow)
            target.draw(image: view, in: part, from: part, transform: toCrop.concatenating(toDevice), opacity: opacity, clip: clip)
        }
    }
}

extension WindowPicture {
    /// What the window draws, bottom first: the root surface, each subsurface over its
    /// parent in stacking order, then the overlays with theirs (`stack()`), all cut to
    /// `windowRect` (the layer's bounds). Empty while the root has no buffer.
    public var pieces: [WindowPiece] {
        guard let window = windowRect?.rect else { return [] }
        return stack().compactMap { $0.surface.piece(x: $0.x, y: $0.y)?.clipped(to: window) }
    }

    /// Draws the window's pieces over `target` with the window rectangle stretched into
    /// `rect` (layer coordinates), mapped through `transform`, with `opacity`: overlapping
    /// pieces fade as one.
    public func draw(in rect: Rect, on target: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
        guard let window = windowRect, window.width > 0, window.height > 0, opacity > 0 else { return }
        let pieces = pieces
        let sx = rect.size.width / Double(window.width), sy = rect.size.height / Double(window.height)
        let toLayer = AffineTransform(a: sx, b: 0, c: 0, d: sy, tx: rect.origin.x - Double(window.x) * sx, ty: rect.origin.y - Double(window.y) * sy)
        let toDevice = toLayer.concatenating(transform)
        guard pieces.count > 1, opacity < 1 else {
            for piece in pieces { piece.draw(on: target, toDevice: toDevice, opacity: opacity, clip: clip) }
            return
        }
        let area = PixelRect(covering: toDevice.boundingBox(of: window.rect))
        target.drawGroup(bounds: area, opacity: opacity, clip: clip) { group, toGroup in
            for piece in pieces { piece.draw(on: group, toDevice: toDevice.concatenating(toGroup), opacity: 1, clip: nil) }
        }
    }
}

extension Surface {
    /// The pixels of `rect` (inside the surface) as a surface of their own, sharing this
    /// one's memory, which it keeps.
    fileprivate func view(of rect: PixelRect) -> Surface {
        Surface(
            wrapping: pixels + rect.y * stride + rect.x, width: rect.width, height: rect.height, stride: stride, ignoresAlpha: ignoresAlpha,
            release: { withExtendedLifetime(self) {} })
    }
}
