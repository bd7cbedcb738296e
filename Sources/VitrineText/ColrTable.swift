import CFreeType
import Glibc
import VitrineCore

/// A face's COLR version 1 data read from the table's bytes: base glyph paints, the layer
/// list, clip boxes and the paint tables they point to.
///
/// FreeType 2.12 declares `FT_Get_Color_Glyph_Paint` and its siblings, but Debian's build
/// leaves them unimplemented (they always return false), so the v1 part is read here.
/// Variable paints are read at their default values. Every read is bounds-checked: a
/// broken table gives no paint rather than a crash.
struct ColrTable {
    private let bytes: [UInt8]
    private let baseGlyphList: Int
    private let layerList: Int
    private let clipList: Int

    /// A colour stop: position on the line, palette entry, alpha.
    struct Stop {
        var offset: Double
        var paletteIndex: Int
        var alpha: Double
    }

    /// A gradient's colour line.
    struct ColorLine {
        /// 0 pad, 1 repeat, 2 reflect.
        var extend: Int
        var stops: [Stop]
    }

    /// One paint table; children are the offsets of other paint tables.
    enum Paint {
        case layers(Range<Int>)
        case solid(paletteIndex: Int, alpha: Double)
        case linear(ColorLine, p0: Point, p1: Point, p2: Point)
        case radial(ColorLine, c0: Point, r0: Double, c1: Point, r1: Double)
        /// Angles in degrees, counter-clockwise.
        case sweep(ColorLine, centre: Point, start: Double, end: Double)
        case glyph(UInt32, child: Int)
        case colrGlyph(UInt32)
        /// The child drawn through `transform` (child space to this paint's space).
        case transform(AffineTransform, child: Int)
        case composite(source: Int, mode: Int, backdrop: Int)
    }

    /// The face's COLR v1 data, nil when it has none.
    init?(face: FT_Face) {
        var length: FT_ULong = 0
        let tag = FT_ULong(0x434F_4C52)  // "COLR"
        guard FT_Load_Sfnt_Table(face, tag, 0, nil, &length) == 0, length >= 34, length < 1 << 26 else { return nil }
        var table = [UInt8](repeating: 0, count: Int(length))
        guard FT_Load_Sfnt_Table(face, tag, 0, &table, &length) == 0 else { return nil }
        bytes = table
        func u16(_ i: Int) -> Int { Int(table[i]) << 8 | Int(table[i + 1]) }
        func u32(_ i: Int) -> Int { u16(i) << 16 | u16(i + 2) }
        guard u16(0) >= 1, u32(14) > 0 else { return nil }
        (baseGlyphList, layerList, clipList) = (u32(14), u32(18), u32(22))
    }

    // MARK: Reading

    private func u8(_ i: Int) -> Int? { i >= 0 && i < bytes.count ? Int(bytes[i]) : nil }
    private func u16(_ i: Int) -> Int? { i >= 0 && i + 2 <= bytes.count ? Int(bytes[i]) << 8 | Int(bytes[i + 1]) : nil }
    private func u24(_ i: Int) -> Int? {
        guard let high = u8(i), let low = u16(i + 1) else { return nil }
        return high << 16 | low
    }
    private func u32(_ i: Int) -> Int? {
        guard let high = u16(i), let low = u16(i + 2) else { return nil }
        return high << 16 | low
    }
    private func i16(_ i: Int) -> Double? { u16(i).map { Double(Int16(truncatingIfNeeded: $0)) } }
    private func f2dot14(_ i: Int) -> Double? { i16(i).map { $0 / 16384 } }
    private func fixed(_ i: Int) -> Double? { u32(i).map { Double(Int32(truncatingIfNeeded: $0)) / 65536 } }
    /// The table at a non-zero 24-bit offset at `i` from `base`.
    private func child(_ base: Int, _ i: Int) -> Int? {
        guard let offset = u24(base + i), offset > 0, base + offset < bytes.count else { return nil }
        return base + offset
    }

    // MARK: Lookups

    /// The offset of `glyph`'s root paint, nil when it has none.
    func rootPaint(of glyph: UInt32) -> Int? {
        guard let count = u32(baseGlyphList) else { return nil }
        var (low, high) = (0, count)
        while low < high {
            let mid = (low + high) / 2
            let record = baseGlyphList + 4 + mid * 6
            guard let id = u16(record) else { return nil }
            if id < glyph {
                low = mid + 1
            } else if id > glyph {
                high = mid
            } else {
                guard let offset = u32(record + 2), offset > 0, baseGlyphList + offset < bytes.count else { return nil }
                return baseGlyphList + offset
            }
        }
        return nil
    }

    /// `glyph`'s clip box in font units, nil when the table gives none.
    func clipBox(of glyph: UInt32) -> Rect? {
        guard clipList > 0, u8(clipList) == 1, let count = u32(clipList + 1) else { return nil }
        for i in 0..<min(count, 65536) {
            let record = clipList + 5 + i * 7
            guard let first = u16(record), let last = u16(record + 2) else { return nil }
            guard (first...max(first, last)).contains(Int(glyph)) else { continue }
            guard let box = child(clipList, record + 4 - clipList), let x0 = i16(box + 1), let y0 = i16(box + 3),
                let x1 = i16(box + 5), let y1 = i16(box + 7)
            else { return nil }
            return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
        return nil
    }

    /// The paint at the layer list's `index`.
    func layer(_ index: Int) -> Int? {
        guard layerList > 0, let count = u32(layerList), index < count, let offset = u32(layerList + 4 + index * 4), offset > 0 else {
            return nil
        }
        return layerList + offset
    }

    /// The paint table at `p`, nil when it is not one this reader knows or is broken.
    func paint(at p: Int) -> Paint? {
        guard let format = u8(p) else { return nil }
        func around(_ m: AffineTransform, _ cx: Double, _ cy: Double) -> AffineTransform {
            AffineTransform(translationX: -cx, y: -cy).concatenating(m).concatenating(AffineTransform(translationX: cx, y: cy))
        }
        switch format {
        case 1:
            guard let count = u8(p + 1), let first = u32(p + 2) else { return nil }
            return .layers(first..<(first + count))
        case 2, 3:
            guard let index = u16(p + 1), let alpha = f2dot14(p + 3) else { return nil }
            return .solid(paletteIndex: index, alpha: alpha)
        case 4, 5:
            guard let line = colorLine(child(p, 1), variable: format == 5), let x0 = i16(p + 4), let y0 = i16(p + 6),
                let x1 = i16(p + 8), let y1 = i16(p + 10), let x2 = i16(p + 12), let y2 = i16(p + 14)
            else { return nil }
            return .linear(line, p0: Point(x: x0, y: y0), p1: Point(x: x1, y: y1), p2: Point(x: x2, y: y2))
        case 6, 7:
            guard let line = colorLine(child(p, 1), variable: format == 7), let x0 = i16(p + 4), let y0 = i16(p + 6),
                let r0 = u16(p + 8), let x1 = i16(p + 10), let y1 = i16(p + 12), let r1 = u16(p + 14)
            else { return nil }
            return .radial(line, c0: Point(x: x0, y: y0), r0: Double(r0), c1: Point(x: x1, y: y1), r1: Double(r1))
        case 8, 9:
            guard let line = colorLine(child(p, 1), variable: format == 9), let cx = i16(p + 4), let cy = i16(p + 6),
                let start = f2dot14(p + 8), let end = f2dot14(p + 10)
            else { return nil }
            // Sweep angles are biased: (value + 1) × 180° (the spec's 2022 erratum, as fontTools writes them).
            return .sweep(line, centre: Point(x: cx, y: cy), start: (start + 1) * 180, end: (end + 1) * 180)
        case 10:
            guard let paint = child(p, 1), let glyph = u16(p + 4) else { return nil }
            return .glyph(UInt32(glyph), child: paint)
        case 11:
            return u16(p + 1).map { .colrGlyph(UInt32($0)) }
        case 12, 13:
            guard let paint = child(p, 1), let m = child(p, 4), let xx = fixed(m), let yx = fixed(m + 4), let xy = fixed(m + 8),
                let yy = fixed(m + 12), let dx = fixed(m + 16), let dy = fixed(m + 20)
            else { return nil }
            return .transform(AffineTransform(a: xx, b: yx, c: xy, d: yy, tx: dx, ty: dy), child: paint)
        case 14, 15:
            guard let paint = child(p, 1), let dx = i16(p + 4), let dy = i16(p + 6) else { return nil }
            return .transform(AffineTransform(translationX: dx, y: dy), child: paint)
        case 16...23:
            let uniform = format >= 20
            let centred = format == 18 || format == 19 || format == 22 || format == 23
            guard let paint = child(p, 1), let sx = f2dot14(p + 4), let sy = uniform ? sx : f2dot14(p + 6) else { return nil }
            let at = p + (uniform ? 6 : 8)
            guard let cx = centred ? i16(at) : 0, let cy = centred ? i16(at + 2) : 0 else { return nil }
            return .transform(around(AffineTransform(scaleX: sx, y: sy), cx, cy), child: paint)
        case 24...27:
            guard let paint = child(p, 1), let angle = f2dot14(p + 4) else { return nil }
            guard let cx = format >= 26 ? i16(p + 6) : 0, let cy = format >= 26 ? i16(p + 8) : 0 else { return nil }
            return .transform(around(AffineTransform(rotationAngle: angle * .pi), cx, cy), child: paint)
        case 28...31:
            guard let paint = child(p, 1), let ax = f2dot14(p + 4), let ay = f2dot14(p + 6) else { return nil }
            guard let cx = format >= 30 ? i16(p + 8) : 0, let cy = format >= 30 ? i16(p + 10) : 0 else { return nil }
            let skew = AffineTransform(a: 1, b: tan(ay * .pi), c: -tan(ax * .pi), d: 1, tx: 0, ty: 0)
            return .transform(around(skew, cx, cy), child: paint)
        case 32:
            guard let source = child(p, 1), let mode = u8(p + 4), let backdrop = child(p, 5) else { return nil }
            return .composite(source: source, mode: mode, backdrop: backdrop)
        default:
            return nil
        }
    }

    private func colorLine(_ at: Int?, variable: Bool) -> ColorLine? {
        guard let at, let extend = u8(at), let count = u16(at + 1) else { return nil }
        let size = variable ? 10 : 6
        var stops: [Stop] = []
        for i in 0..<min(count, 256) {
            let s = at + 3 + i * size
            guard let offset = f2dot14(s), let index = u16(s + 2), let alpha = f2dot14(s + 4) else { return nil }
            stops.append(Stop(offset: offset, paletteIndex: index, alpha: alpha))
        }
        return ColorLine(extend: extend <= 2 ? extend : 0, stops: stops.sorted { $0.offset < $1.offset })
    }
}
