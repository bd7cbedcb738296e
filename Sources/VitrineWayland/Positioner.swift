import CWaylandServer
import VitrineRaster

/// The rules of an `xdg_positioner`: where a popup goes relative to its parent's window
/// geometry, and how it is moved or resized when that place is outside the area it must
/// stay in (for a window on a layer, the layer: the toplevel's window).
///
/// ```swift
/// var rules = PositionerRules(width: 80, height: 40)
/// rules.anchorRect = PixelRect(x: 10, y: 10, width: 20, height: 10)
/// rules.anchor = .bottomRight
/// rules.gravity = .bottomRight
/// rules.adjustment = [.flipY, .slideX]
/// let place = rules.place(within: PixelRect(x: 0, y: 0, width: 100, height: 60))
/// ```
public struct PositionerRules: Equatable, Sendable {
    /// An edge or corner of the anchor rectangle (`anchor`) or the direction the popup
    /// extends from the anchor point (`gravity`); the protocol's values.
    public enum Direction: UInt32, Sendable {
        case none = 0, top, bottom, left, right, topLeft, bottomLeft, topRight, bottomRight

        /// -1 (left), 0 (centred) or 1 (right), and likewise top to bottom.
        var axes: (x: Int, y: Int) {
            switch self {
            case .none: (0, 0)
            case .top: (0, -1)
            case .bottom: (0, 1)
            case .left: (-1, 0)
            case .right: (1, 0)
            case .topLeft: (-1, -1)
            case .bottomLeft: (-1, 1)
            case .topRight: (1, -1)
            case .bottomRight: (1, 1)
            }
        }
    }

    /// How a popup that would be outside its area is adjusted: flipped, then slid, then
    /// resized, each axis on its own (`xdg_positioner.constraint_adjustment`).
    public struct Adjustment: OptionSet, Equatable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let slideX = Adjustment(rawValue: 1)
        public static let slideY = Adjustment(rawValue: 2)
        public static let flipX = Adjustment(rawValue: 4)
        public static let flipY = Adjustment(rawValue: 8)
        public static let resizeX = Adjustment(rawValue: 16)
        public static let resizeY = Adjustment(rawValue: 32)
    }

    /// The popup's size (its window geometry's).
    public var width = 0, height = 0
    /// The rectangle of the parent's window geometry the popup is placed against; nil
    /// until set.
    public var anchorRect: PixelRect?
    public var anchor = Direction.none
    public var gravity = Direction.none
    public var adjustment: Adjustment = []
    /// Added to the position the anchor and gravity give.
    public var offset = (x: 0, y: 0)
    /// Placed again when the parent's size changes.
    public var reactive = false
    /// The parent's window size to constrain against (the client's expectation of its
    /// next configure), and the serial of the parent's configure it answers.
    public var parentSize: (width: Int, height: Int)?
    public var parentConfigure: UInt32?

    public init(width: Int = 0, height: Int = 0) {
        (self.width, self.height) = (width, height)
    }

    /// Both the size and the anchor rectangle are set (a popup needs them).
    public var isComplete: Bool { width > 0 && height > 0 && anchorRect != nil }

    public static func == (a: Self, b: Self) -> Bool {
        a.width == b.width && a.height == b.height && a.anchorRect == b.anchorRect && a.anchor == b.anchor && a.gravity == b.gravity
            && a.adjustment == b.adjustment && a.offset == b.offset && a.reactive == b.reactive && a.parentSize?.width == b.parentSize?.width
            && a.parentSize?.height == b.parentSize?.height && a.parentConfigure == b.parentConfigure
    }

    /// Where the popup goes in its parent's window geometry's coordinates, kept within
    /// `area` (in the same coordinates) as far as the adjustments allow; what still
    /// overflows is left to be clipped.
    public func place(within area: PixelRect) -> PixelRect {
        let anchorRect = anchorRect ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
        let a = anchor.axes, g = gravity.axes
        var x = Self.position(anchorRect.x, anchorRect.width, a.x, g.x, offset.x, width)
        var y = Self.position(anchorRect.y, anchorRect.height, a.y, g.y, offset.y, height)
        var (w, h) = (width, height)
        let (left, right, top, bottom) = (area.x, area.maxX, area.y, area.maxY)
        func outside(_ start: Int, _ size: Int, _ low: Int, _ high: Int) -> Bool { start < low || start + size > high }

        if adjustment.contains(.flipX), outside(x, w, left, right) {
            let flipped = Self.position(anchorRect.x, anchorRect.width, -a.x, -g.x, offset.x, width)
            if !outside(flipped, w, left, right) { x = flipped }
        }
        if adjustment.contains(.flipY), outside(y, h, top, bottom) {
            let flipped = Self.position(anchorRect.y, anchorRect.height, -a.y, -g.y, offset.y, height)
            if !outside(flipped, h, top, bottom) { y = flipped }
        }
        if adjustment.contains(.slideX), outside(x, w, left, right) { x = Self.slide(x, w, left, right, toward: g.x) }
        if adjustment.contains(.slideY), outside(y, h, top, bottom) { y = Self.slide(y, h, top, bottom, toward: g.y) }
        if adjustment.contains(.resizeX), outside(x, w, left, right) {
            let (start, end) = (max(x, left), min(x + w, right))
            if end > start { (x, w) = (start, end - start) }
        }
        if adjustment.contains(.resizeY), outside(y, h, top, bottom) {
            let (start, end) = (max(y, top), min(y + h, bottom))
            if end > start { (y, h) = (start, end - start) }
        }
        return PixelRect(x: x, y: y, width: w, height: h)
    }

    /// The start of the popup on one axis: the anchor point (the rectangle's start, middle
    /// or end) plus the offset, less the part of the popup the gravity puts before it.
    private static func position(_ start: Int, _ length: Int, _ anchor: Int, _ gravity: Int, _ offset: Int, _ size: Int) -> Int {
        let point = start + (anchor < 0 ? 0 : anchor > 0 ? length : length / 2)
        return point + offset - (gravity < 0 ? size : gravity > 0 ? 0 : size / 2)
    }

    /// Slides `start` as the protocol says: towards the gravity until the far edge is
    /// inside or the near one would leave, then back the other way likewise.
    private static func slide(_ start: Int, _ size: Int, _ low: Int, _ high: Int, toward gravity: Int) -> Int {
        var x = start
        func moveLeft() { x -= max(0, min(x + size - high, x - low)) }
        func moveRight() { x += max(0, min(low - x, high - (x + size))) }
        if gravity < 0 {
            moveLeft()
            moveRight()
        } else {
            moveRight()
            moveLeft()
        }
        return x
    }
}

/// `xdg_positioner`: collects the rules a popup is placed by (copied when used).
final class PositionerObject: ServerObject {
    private(set) var rules = PositionerRules()

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.xdgShell["xdg_positioner"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch XdgPositionerRequest(rawValue: opcode) {
        case .destroy:
            destroy()
        case .set_size:
            guard a[0].i > 0, a[1].i > 0 else { return invalid("set_size \(a[0].i)×\(a[1].i): the size must be positive") }
            (rules.width, rules.height) = (Int(a[0].i), Int(a[1].i))
        case .set_anchor_rect:
            guard a[2].i >= 0, a[3].i >= 0 else { return invalid("set_anchor_rect of \(a[2].i)×\(a[3].i): the size must not be negative") }
            rules.anchorRect = PixelRect(x: Int(a[0].i), y: Int(a[1].i), width: Int(a[2].i), height: Int(a[3].i))
        case .set_anchor:
            guard let anchor = PositionerRules.Direction(rawValue: a[0].u) else { return invalid("set_anchor \(a[0].u) is not an xdg_positioner.anchor") }
            rules.anchor = anchor
        case .set_gravity:
            guard let gravity = PositionerRules.Direction(rawValue: a[0].u) else { return invalid("set_gravity \(a[0].u) is not an xdg_positioner.gravity") }
            rules.gravity = gravity
        case .set_constraint_adjustment:
            rules.adjustment = PositionerRules.Adjustment(rawValue: a[0].u & 63)
        case .set_offset:
            rules.offset = (Int(a[0].i), Int(a[1].i))
        case .set_reactive:
            rules.reactive = true
        case .set_parent_size:
            guard a[0].i >= 0, a[1].i >= 0 else { return invalid("set_parent_size \(a[0].i)×\(a[1].i): the size must not be negative") }
            rules.parentSize = (Int(a[0].i), Int(a[1].i))
        case .set_parent_configure:
            rules.parentConfigure = a[0].u
        case nil:
            break
        }
    }

    private func invalid(_ message: String) { postError(XdgPositionerError.invalid_input, message) }
}
