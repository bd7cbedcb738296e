import VitrineRaster

/// How the picture is turned on the panel, clockwise: a portrait kiosk is a landscape
/// monitor mounted on its side with `.quarter` or `.threeQuarters`.
///
/// The scene is laid out in the rotated (logical) size; the screen's own (physical)
/// pixels are the mode's. With 90 and 270 the two sizes swap sides.
public enum ScreenRotation: Int, Sendable, CaseIterable, CustomStringConvertible {
    case none = 0, quarter = 90, half = 180, threeQuarters = 270

    public var description: String { "\(rawValue)°" }

    /// Whether the logical size is the physical size with its sides swapped.
    public var swapsSides: Bool { self == .quarter || self == .threeQuarters }

    /// The logical size of a screen whose physical size is `width`×`height`.
    public func logicalSize(physicalWidth width: Int, height: Int) -> (width: Int, height: Int) {
        swapsSides ? (height, width) : (width, height)
    }

    /// The physical pixels showing logical `rect` of a `logicalWidth`×`logicalHeight` picture.
    public func physicalRect(of rect: PixelRect, logicalWidth w: Int, logicalHeight h: Int) -> PixelRect {
        switch self {
        case .none: rect
        case .quarter: PixelRect(x: h - rect.maxY, y: rect.x, width: rect.height, height: rect.width)
        case .half: PixelRect(x: w - rect.maxX, y: h - rect.maxY, width: rect.width, height: rect.height)
        case .threeQuarters: PixelRect(x: rect.y, y: w - rect.maxX, width: rect.height, height: rect.width)
        }
    }

    /// The KMS plane rotation bit that shows a buffer this way (KMS counts
    /// counter-clockwise: DRM_MODE_ROTATE_90 turns the picture a quarter to the left).
    var kmsRotationBit: UInt64 {
        switch self {
        case .none: 1 << 0
        case .quarter: 1 << 3
        case .half: 1 << 2
        case .threeQuarters: 1 << 1
        }
    }
}
