/// An outline given as SVG path data (the `d` attribute), as a layer's `shadowPath`
/// holds it: `M0 0 L100 0 L50 80 Z`.
///
/// The commands are SVG's, absolute (upper case) and relative (lower case): `M` move,
/// `L` line, `H`/`V` horizontal and vertical lines, `C`/`S` cubic and `Q`/`T`
/// quadratic Béziers (`S` and `T` reflect the previous control point) and `Z` close.
/// Numbers are separated by spaces or commas, or by nothing where a sign or a second
/// decimal point starts the next one (`10-5`, `.5.5`); a command's arguments repeat
/// without repeating its letter, and extra pairs after `M` are lines. Elliptical arcs
/// (`A`) are not supported. Every element is made absolute, so `elements` is what a
/// rasterizer fills.
///
/// ```swift
/// let triangle = try PathData(parsing: "M0 0 L100 0 L50 80 Z")
/// triangle.controlBounds  // [0, 0, 100, 80]
/// ```
public struct PathData: Sendable, Hashable {
    /// One absolute drawing command (a `Path`'s too).
    public enum Element: Sendable, Hashable {
        case move(Point)
        case line(Point)
        case quad(Point, control: Point)
        case cubic(Point, control1: Point, control2: Point)
        case close
    }

    /// The commands, in order, in absolute coordinates.
    public let elements: [Element]

    /// Why a string is not path data: what is wrong and at which byte.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let message: String
        /// The byte offset in the string where the problem starts.
        public let offset: Int
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// Parses `text`; the empty string (or only spaces) is the empty path.
    public init(parsing text: String) throws(ParseError) {
        var scanner = PathDataScanner(bytes: Array(text.utf8))
        elements = try scanner.parse()
    }

    /// Why `text` is not acceptable path data, or nil when it is: the check a layer's
    /// `shadowPath` is set through.
    public static func problem(in text: String) -> String? {
        do throws(ParseError) {
            _ = try PathData(parsing: text)
            return nil
        } catch {
            return "not SVG path data: \(error)"
        }
    }

    /// The bounding box of all points, control points included (`.null` when empty).
    public var controlBounds: Rect { elements.controlBounds }
}

extension Array where Element == PathData.Element {
    /// The bounding box of all points, control points included (`.null` when empty).
    public var controlBounds: Rect {
        var x0 = Double.infinity, y0 = Double.infinity, x1 = -Double.infinity, y1 = -Double.infinity
        func add(_ p: Point) { x0 = Swift.min(x0, p.x); y0 = Swift.min(y0, p.y); x1 = Swift.max(x1, p.x); y1 = Swift.max(y1, p.y) }
        for e in self {
            switch e {
            case .move(let p), .line(let p): add(p)
            case .quad(let p, let c): add(p); add(c)
            case .cubic(let p, let c1, let c2): add(p); add(c1); add(c2)
            case .close: break
            }
        }
        return x0 > x1 ? .null : Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// Reads SVG path data byte by byte.
private struct PathDataScanner {
    let bytes: [UInt8]
    var i = 0
    var elements: [PathData.Element] = []
    var current = Point.zero, start = Point.zero
    /// The control point a following `S` or `T` reflects, and which of the two it is for.
    var lastCubicControl: Point?, lastQuadControl: Point?

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parse() throws(PathData.ParseError) -> [PathData.Element] {
        skipSpaces()
        var command: UInt8?
        while i < bytes.count {
            let b = bytes[i]
            if isCommand(b) {
                command = b
                i += 1
                if b == UInt8(ascii: "Z") || b == UInt8(ascii: "z") {
                    close()
                    skipSpaces()
                    continue
                }
            } else if (b | 0x20) >= UInt8(ascii: "a"), (b | 0x20) <= UInt8(ascii: "z") {
                throw .init(
                    message: "'\(Character(Unicode.Scalar(b)))' is not a supported command (M, L, H, V, C, S, Q, T and Z are; arcs are not)",
                    offset: i)
            } else if command == nil || command == UInt8(ascii: "Z") || command == UInt8(ascii: "z") {
                throw .init(message: "expected a command letter (M, L, H, V, C, S, Q, T or Z)", offset: i)
            }
            guard let c = command else { continue }
            try arguments(of: c)
            // After a move, further pairs are lines of the same kind.
            if c == UInt8(ascii: "M") { command = UInt8(ascii: "L") }
            if c == UInt8(ascii: "m") { command = UInt8(ascii: "l") }
            skipSpaces()
        }
        return elements
    }

    private func isCommand(_ b: UInt8) -> Bool {
        "MmLlHhVvCcSsQqTtZz".utf8.contains(b)
    }

    /// One set of arguments of `c`, appending its element.
    private mutating func arguments(of c: UInt8) throws(PathData.ParseError) {
        let relative = c >= UInt8(ascii: "a")
        let base = relative ? current : .zero
        func point(_ p: Point) -> Point { Point(x: base.x + p.x, y: base.y + p.y) }
        switch c | 0x20 {
        case UInt8(ascii: "m"):
            // A leading `m` is absolute: the current point starts at the origin.
            let p = point(try pair())
            elements.append(.move(p))
            (current, start) = (p, p)
            (lastCubicControl, lastQuadControl) = (nil, nil)
            return
        case UInt8(ascii: "l"):
            try needsMove()
            line(to: point(try pair()))
        case UInt8(ascii: "h"):
            try needsMove()
            let x = try number()
            line(to: Point(x: relative ? current.x + x : x, y: current.y))
        case UInt8(ascii: "v"):
            try needsMove()
            let y = try number()
            line(to: Point(x: current.x, y: relative ? current.y + y : y))
        case UInt8(ascii: "c"):
            try needsMove()
            let c1 = point(try pair()), c2 = point(try pair()), p = point(try pair())
            cubic(to: p, c1, c2)
        case UInt8(ascii: "s"):
            try needsMove()
            let c1 = reflected(lastCubicControl)
            let c2 = point(try pair()), p = point(try pair())
            cubic(to: p, c1, c2)
        case UInt8(ascii: "q"):
            try needsMove()
            let control = point(try pair()), p = point(try pair())
            quad(to: p, control)
        default:  // t
            try needsMove()
            let control = reflected(lastQuadControl)
            quad(to: point(try pair()), control)
        }
    }

    private func needsMove() throws(PathData.ParseError) {
        if elements.isEmpty { throw .init(message: "path data must start with M", offset: i) }
    }

    /// The reflection of `control` about the current point; the current point itself
    /// without one (an `S` or `T` that follows no curve of its kind).
    private func reflected(_ control: Point?) -> Point {
        guard let control else { return current }
        return Point(x: 2 * current.x - control.x, y: 2 * current.y - control.y)
    }

    private mutating func line(to p: Point) {
        elements.append(.line(p))
        current = p
        (lastCubicControl, lastQuadControl) = (nil, nil)
    }

    private mutating func cubic(to p: Point, _ c1: Point, _ c2: Point) {
        elements.append(.cubic(p, control1: c1, control2: c2))
        current = p
        (lastCubicControl, lastQuadControl) = (c2, nil)
    }

    private mutating func quad(to p: Point, _ control: Point) {
        elements.append(.quad(p, control: control))
        current = p
        (lastCubicControl, lastQuadControl) = (nil, control)
    }

    private mutating func close() {
        guard !elements.isEmpty else { return }
        elements.append(.close)
        current = start
        (lastCubicControl, lastQuadControl) = (nil, nil)
    }

    private mutating func pair() throws(PathData.ParseError) -> Point {
        let x = try number()
        return Point(x: x, y: try number())
    }

    /// The next number, after any spaces, `[+-]digits[.digits][e[+-]digits]`, and the
    /// separator after it.
    private mutating func number() throws(PathData.ParseError) -> Double {
        skipSpaces()
        let first = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        let integerDigits = digits()
        var fractionDigits = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            fractionDigits = digits()
        }
        guard integerDigits + fractionDigits > 0 else {
            i = first
            throw .init(message: i < bytes.count ? "expected a number" : "a command lacks numbers", offset: first)
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            let mark = i
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            if digits() == 0 { i = mark }
        }
        let text = String(decoding: bytes[first..<i], as: UTF8.self)
        guard let value = Double(text), value.isFinite, abs(value) <= maximumMagnitude else {
            throw .init(message: "numbers must be finite and within ±1e9", offset: first)
        }
        skipSpaces()
        if i < bytes.count, bytes[i] == UInt8(ascii: ",") {
            i += 1
            skipSpaces()
        }
        return value
    }

    private mutating func digits() -> Int {
        let from = i
        while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
        return i - from
    }

    /// Skips spaces, tabs and line breaks.
    private mutating func skipSpaces() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x0C {
            i += 1
        }
    }
}
