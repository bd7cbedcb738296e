import VitrineCore

/// Where a layer's contents go inside its bounds: Core Animation's `contentsGravity`, in a
/// y-down space (so `top` is the minimum y).
public enum ContentsGravity: String, Sendable, CaseIterable {
    case resize, resizeAspect, resizeAspectFill
    case center, top, bottom, left, right
    case topLeft, topRight, bottomLeft, bottomRight

    /// The rectangle the contents are drawn into, in the bounds' coordinates. The
    /// non-resizing gravities keep the content size and may overflow the bounds.
    ///
    /// ```swift
    /// ContentsGravity.resizeAspect.rect(contentSize: Size(width: 200, height: 100),
    ///                                   bounds: Rect(x: 0, y: 0, width: 100, height: 100))
    /// // [0, 25, 100, 50]
    /// ```
    public func rect(contentSize: Size, bounds: Rect) -> Rect {
        let cw = contentSize.width, ch = contentSize.height
        let (bx, by, bw, bh) = (bounds.minX, bounds.minY, bounds.width, bounds.height)
        func placed(_ w: Double, _ h: Double, _ fx: Double, _ fy: Double) -> Rect {
            Rect(x: bx + (bw - w) * fx, y: by + (bh - h) * fy, width: w, height: h)
        }
        switch self {
        case .resize:
            return Rect(x: bx, y: by, width: bw, height: bh)
        case .resizeAspect, .resizeAspectFill:
            guard cw > 0, ch > 0 else { return Rect(x: bounds.midX, y: bounds.midY, width: 0, height: 0) }
            let sx = bw / cw, sy = bh / ch
            let s = self == .resizeAspect ? min(sx, sy) : max(sx, sy)
            return placed(cw * s, ch * s, 0.5, 0.5)
        case .center: return placed(cw, ch, 0.5, 0.5)
        case .top: return placed(cw, ch, 0.5, 0)
        case .bottom: return placed(cw, ch, 0.5, 1)
        case .left: return placed(cw, ch, 0, 0.5)
        case .right: return placed(cw, ch, 1, 0.5)
        case .topLeft: return placed(cw, ch, 0, 0)
        case .topRight: return placed(cw, ch, 1, 0)
        case .bottomLeft: return placed(cw, ch, 0, 1)
        case .bottomRight: return placed(cw, ch, 1, 1)
        }
    }
}
