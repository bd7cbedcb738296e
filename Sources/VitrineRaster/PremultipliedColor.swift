import VitrineCore

/// A premultiplied ARGB8888 colour packed as `0xAARRGGBB`, the pixel format of `Surface`.
///
/// Invariant: the red, green and blue components are each `<=` alpha. Core's `Color` is
/// straight (not premultiplied); convert with `PremultipliedColor(_:)` and `color`.
public struct PremultipliedColor: Hashable, Sendable, CustomStringConvertible {
    /// The packed `0xAARRGGBB` value.
    public let argb: UInt32

    /// Fully transparent black, the value of a cleared surface.
    public static let transparent = PremultipliedColor(unchecked: 0)
    public static let black = PremultipliedColor(unchecked: 0xFF00_0000)
    public static let white = PremultipliedColor(unchecked: 0xFFFF_FFFF)

    /// Wraps a packed value, or returns nil when a colour component exceeds alpha.
    public init?(argb: UInt32) {
        let a = argb >> 24
        guard (argb >> 16) & 0xFF <= a, (argb >> 8) & 0xFF <= a, argb & 0xFF <= a else { return nil }
        self.argb = argb
    }

    /// Wraps a packed value the caller knows to be premultiplied.
    @inlinable
    public init(unchecked argb: UInt32) { self.argb = argb }

    /// Premultiplies byte components (straight values 0…255).
    public init(straightRed r: UInt8, green g: UInt8, blue b: UInt8, alpha a: UInt8) {
        let a32 = UInt32(a)
        argb =
            a32 << 24 | mulDiv255(UInt32(r), a32) << 16 | mulDiv255(UInt32(g), a32) << 8
            | mulDiv255(UInt32(b), a32)
    }

    /// Converts a straight colour (clamped to 0…1), rounding each premultiplied component
    /// to the nearest byte.
    public init(_ color: Color) {
        let c = color.clamped
        func byte(_ v: Double) -> UInt32 { UInt32((v * 255).rounded()) }
        let a = byte(c.alpha)
        let scale = Double(a) / 255
        argb =
            a << 24 | min(a, byte(c.red * scale)) << 16 | min(a, byte(c.green * scale)) << 8
            | min(a, byte(c.blue * scale))
    }

    /// Components as bytes (colour components already multiplied by alpha).
    public var alpha: UInt8 { UInt8(truncatingIfNeeded: argb >> 24) }
    public var red: UInt8 { UInt8(truncatingIfNeeded: argb >> 16) }
    public var green: UInt8 { UInt8(truncatingIfNeeded: argb >> 8) }
    public var blue: UInt8 { UInt8(truncatingIfNeeded: argb) }

    /// The straight colour (components divided by alpha; black when transparent).
    public var color: Color {
        guard alpha != 0 else { return .clear }
        let a = Double(alpha)
        return Color(
            red: Double(red) / a, green: Double(green) / a, blue: Double(blue) / a, alpha: a / 255)
    }

    /// Straight byte components, rounded: what a PNG stores.
    public var straightBytes: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        let a = UInt32(alpha)
        guard a != 0 else { return (0, 0, 0, 0) }
        func un(_ c: UInt8) -> UInt8 { UInt8(min(255, (UInt32(c) * 255 + a / 2) / a)) }
        return (un(red), un(green), un(blue), alpha)
    }

    /// Every component multiplied by `coverage`/255 with pixman's rounding.
    public func scaled(by coverage: UInt8) -> PremultipliedColor {
        PremultipliedColor(unchecked: scalePixel(argb, UInt32(coverage)))
    }

    public var description: String {
        "0x" + String(argb, radix: 16, uppercase: true).leftPadded(to: 8)
    }
}

extension String {
    fileprivate func leftPadded(to n: Int) -> String {
        count >= n ? self : String(repeating: "0", count: n - count) + self
    }
}

/// `x·a/255` rounded as pixman does: `t = x·a + 0x80; (t + (t >> 8)) >> 8`.
@inline(__always)
@usableFromInline
func mulDiv255(_ x: UInt32, _ a: UInt32) -> UInt32 {
    let t = x &* a &+ 0x80
    return (t &+ (t &>> 8)) &>> 8
}

/// All four channels of a packed pixel times `a`/255, two channels per multiply.
@inline(__always)
@usableFromInline
func scalePixel(_ p: UInt32, _ a: UInt32) -> UInt32 {
    var rb = (p & 0x00FF_00FF) &* a &+ 0x0080_0080
    rb = ((rb &+ ((rb &>> 8) & 0x00FF_00FF)) &>> 8) & 0x00FF_00FF
    var ag = ((p &>> 8) & 0x00FF_00FF) &* a &+ 0x0080_0080
    ag = (ag &+ ((ag &>> 8) & 0x00FF_00FF)) & 0xFF00_FF00
    return rb | ag
}

/// Premultiplied source-over of one pixel: `s + d·(255 − sa)/255`.
@inline(__always)
@usableFromInline
func overPixel(_ s: UInt32, _ d: UInt32) -> UInt32 {
    s &+ scalePixel(d, 255 &- (s &>> 24))
}
