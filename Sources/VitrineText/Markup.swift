import VitrineCore

/// Reads the subset of Pango markup docs/TEXT.md lists: `<span>` with font and colour
/// attributes, the convenience tags `<b> <i> <u> <s> <sub> <sup> <small> <big> <tt>`,
/// and the XML entities. Sizes in points are taken at 96 dpi (1 pt = 4/3 px), as Pango
/// on a Cairo surface does; `rise` and `letter_spacing` numbers are in 1/1024 px.
enum Markup {
    /// Pixels per point at Pango's default 96 dpi.
    static let pixelsPerPoint = 96.0 / 72.0
    /// How much `<big>`, `<small>`, `larger` and `smaller` scale (Pango's 1.2).
    static let sizeStep = 1.2

    private struct Frame {
        let tag: String
        let attributes: RunAttributes
    }

    static func parse(_ markup: String) throws(AttributedTextError) -> AttributedText {
        let input = Array(markup.unicodeScalars)
        var text = String.UnicodeScalarView()
        var count = 0
        var runs: [AttributedRun] = []
        var stack: [Frame] = []
        var i = 0
        func fail(_ at: Int, _ what: String) -> AttributedTextError {
            AttributedTextError("markup at character \(at + 1): \(what)")
        }
        func append(_ scalar: Unicode.Scalar) {
            text.append(scalar)
            let attributes = stack.last?.attributes ?? RunAttributes()
            if let last = runs.last, last.range.upperBound == count, last.attributes == attributes {
                runs[runs.count - 1].range = last.range.lowerBound..<(count + 1)
            } else {
                runs.append(AttributedRun(range: count..<(count + 1), attributes: attributes))
            }
            count += 1
        }
        while i < input.count {
            let c = input[i]
            if c == "&" {
                let (scalar, next) = try entity(input, at: i)
                append(scalar)
                i = next
            } else if c == "<" {
                guard let close = input[i...].firstIndex(of: ">") else { throw fail(i, "'<' starts a tag that never ends; write &lt; for a literal '<'") }
                let body = String(String.UnicodeScalarView(input[(i + 1)..<close]))
                if body.hasPrefix("/") {
                    let name = String(body.dropFirst()).trimmingSpaces
                    guard let top = stack.popLast() else { throw fail(i, "</\(name)> closes nothing") }
                    guard top.tag == name else { throw fail(i, "</\(name)> closes <\(top.tag)>; close the inner tag first") }
                } else {
                    let (tag, attributes) = try self.tag(body, at: i)
                    let outer = stack.last?.attributes ?? RunAttributes()
                    if tag == "markup" {
                        stack.append(Frame(tag: tag, attributes: outer))
                    } else {
                        stack.append(Frame(tag: tag, attributes: outer.merged(with: attributes)))
                    }
                }
                i = close + 1
            } else {
                append(c)
                i += 1
            }
        }
        if let open = stack.last { throw AttributedTextError("markup: <\(open.tag)> is never closed; add </\(open.tag)>") }
        return AttributedText(string: String(text), runs: runs)
    }

    private static func entity(_ input: [Unicode.Scalar], at start: Int) throws(AttributedTextError) -> (Unicode.Scalar, Int) {
        let end = input[start...].prefix(12).firstIndex(of: ";")
        guard let end else {
            throw AttributedTextError("markup at character \(start + 1): '&' starts no entity; write &amp; for a literal '&'")
        }
        let name = String(String.UnicodeScalarView(input[(start + 1)..<end]))
        let named: [String: Unicode.Scalar] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
        if let scalar = named[name] { return (scalar, end + 1) }
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            if let value, value != 0, let scalar = Unicode.Scalar(value) { return (scalar, end + 1) }
        }
        throw AttributedTextError(
            "markup at character \(start + 1): '&\(name);' is not an entity; use &amp; &lt; &gt; &quot; &apos; or &#NNN;")
    }

    /// The tag and its attributes from the text between `<` and `>`.
    private static func tag(_ body: String, at position: Int) throws(AttributedTextError) -> (String, RunAttributes) {
        let scalars = Array(body.unicodeScalars)
        var i = 0
        func skipSpaces() { while i < scalars.count, scalars[i].properties.isWhitespace { i += 1 } }
        func word() -> String {
            let start = i
            while i < scalars.count, !scalars[i].properties.isWhitespace, scalars[i] != "=" { i += 1 }
            return String(String.UnicodeScalarView(scalars[start..<i]))
        }
        func fail(_ what: String) -> AttributedTextError { AttributedTextError("markup at character \(position + 1): \(what)") }
        let name = word()
        var a = RunAttributes()
        switch name {
        case "span", "markup": break
        case "b": a.weight = .bold
        case "i": a.style = .italic
        case "u": a.underline = .single
        case "s": a.strikethrough = true
        case "tt": a.family = "monospace"
        case "big": a.sizeScale = sizeStep
        case "small": a.sizeScale = 1 / sizeStep
        case "sub", "sup":
            a.sizeScale = 1 / sizeStep
            a.rise = (name == "sup" ? 5000 : -5000) / 1024
        default:
            throw fail("<\(name)> is not a tag Vitrine reads; use span, b, i, u, s, sub, sup, small, big or tt")
        }
        skipSpaces()
        while i < scalars.count {
            let key = word()
            skipSpaces()
            guard i < scalars.count, scalars[i] == "=" else { throw fail("attribute '\(key)' needs a value: \(key)=\"…\"") }
            i += 1
            skipSpaces()
            guard i < scalars.count, scalars[i] == "\"" || scalars[i] == "'" else {
                throw fail("the value of '\(key)' must be quoted: \(key)=\"…\"")
            }
            let quote = scalars[i]
            i += 1
            let start = i
            while i < scalars.count, scalars[i] != quote { i += 1 }
            guard i < scalars.count else { throw fail("the value of '\(key)' is not closed by \(quote)") }
            let value = unescaped(String(String.UnicodeScalarView(scalars[start..<i])))
            i += 1
            guard name == "span" else { throw fail("<\(name)> takes no attributes; use <span \(key)=…>") }
            do throws(AttributedTextError) {
                try set(key, value, on: &a)
            } catch {
                throw fail(error.message)
            }
            skipSpaces()
        }
        return (name, a)
    }

    private static func unescaped(_ value: String) -> String {
        guard value.contains("&") else { return value }
        return
            value.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"")
            .replacing("&apos;", with: "'").replacing("&amp;", with: "&")
    }

    /// Sets the span attribute `key` (Pango's name or alias) from `value`.
    static func set(_ key: String, _ value: String, on a: inout RunAttributes) throws(AttributedTextError) {
        func bad(_ what: String) -> AttributedTextError { AttributedTextError("\(key)=\"\(value)\": \(what)") }
        switch key {
        case "font_family", "face":
            a.family = value
        case "weight":
            guard let w = FontWeight(name: value) ?? (value == "ultraheavy" ? FontWeight(rawValue: 1000) : nil) else {
                throw bad("not a weight; use normal, bold, light, … or a number 100…1000")
            }
            a.weight = w
        case "style", "font_style":
            switch value {
            case "normal": a.style = .normal
            case "italic", "oblique": a.style = .italic
            default: throw bad("not a style; use normal, italic or oblique")
            }
        case "size", "font_size":
            guard let size = size(value) else {
                throw bad("not a size; use 1024ths of a point (12288), points (\"12pt\"), a percentage (\"120%\"), larger, smaller or x-small…x-large")
            }
            switch size {
            case .absolute(let px): a.size = px
            case .relative(let f): a.sizeScale = f
            }
        case "foreground", "fgcolor", "color":
            guard let c = Color(css: value) else { throw bad("not a colour; use #rrggbb, #rrggbbaa or a CSS name") }
            a.foregroundColor = c
        case "background", "bgcolor":
            guard let c = Color(css: value) else { throw bad("not a colour; use #rrggbb, #rrggbbaa or a CSS name") }
            a.backgroundColor = c
        case "underline":
            guard let u = UnderlineStyle(rawValue: value) ?? (value == "true" ? .single : value == "false" ? UnderlineStyle.none : nil) else {
                throw bad("use none, single, double or low")
            }
            a.underline = u
        case "strikethrough":
            guard value == "true" || value == "false" else { throw bad("use true or false") }
            a.strikethrough = value == "true"
        case "rise":
            guard let v = length(value) else { throw bad("not a length; use 1024ths of a pixel (5000) or points (\"4pt\")") }
            a.rise = v
        case "letter_spacing":
            guard let v = length(value) else { throw bad("not a length; use 1024ths of a pixel (1024) or points (\"1pt\")") }
            a.letterSpacing = v
        case "font_features":
            a.features = try features(value)
        case "name":
            guard !value.isEmpty, !value.contains(".") else { throw bad("a run name is a non-empty word without dots") }
            a.name = value
        default:
            throw AttributedTextError(
                "'\(key)' is not a span attribute Vitrine reads; use font_family, weight, style, size, foreground, background, underline, strikethrough, rise, letter_spacing, font_features or name"
            )
        }
    }

    /// OpenType feature settings as Pango's `font_features` takes them: comma-separated,
    /// each "tnum", "tnum 1", "tnum=1", "-liga" or "liga=0".
    static func features(_ value: String) throws(AttributedTextError) -> [FontFeature] {
        var out: [FontFeature] = []
        for part in value.split(separator: ",") {
            let words = part.split(separator: " ").map(String.init)
            let text = words.count == 2 && UInt32(words[1]) != nil ? "\(words[0])=\(words[1])" : words.joined()
            do {
                out.append(try FontFeature(parsing: text))
            } catch {
                throw AttributedTextError("font_features: \(error.message)")
            }
        }
        return out
    }

    private enum Size {
        case absolute(Double)
        case relative(Double)
    }

    private static let namedSizes: [String: Double] = [
        "xx-small": 1 / 1.728, "x-small": 1 / 1.44, "small": 1 / 1.2, "medium": 1, "large": 1.2, "x-large": 1.44, "xx-large": 1.728,
    ]

    private static func size(_ value: String) -> Size? {
        if let n = Int(value), n > 0 { return .absolute(Double(n) / 1024 * pixelsPerPoint) }
        if value.hasSuffix("pt"), let n = Double(value.dropLast(2)), n > 0, n.isFinite { return .absolute(n * pixelsPerPoint) }
        if value.hasSuffix("%"), let n = Double(value.dropLast()), n > 0, n.isFinite { return .relative(n / 100) }
        if value == "larger" { return .relative(sizeStep) }
        if value == "smaller" { return .relative(1 / sizeStep) }
        return namedSizes[value].map { .relative($0) }
    }

    private static func length(_ value: String) -> Double? {
        if let n = Int(value) { return Double(n) / 1024 }
        if value.hasSuffix("pt"), let n = Double(value.dropLast(2)), n.isFinite { return n }
        return nil
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
