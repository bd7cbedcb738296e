import VitrineCore
import VitrineJSON

/// Reads an attributed string written as a JSON list of runs:
/// `[{"text": "Soup "}, {"text": "4.50", "name": "price", "foregroundColor": "#c00", "fontFeatures": ["tnum"]}]`.
/// The keys are listed in `keys`; lengths are pixels.
enum RunsJSON {
    /// Every key a run takes.
    static let keys = [
        "text", "name", "font", "fontFamily", "fontWeight", "fontStyle", "fontSize", "foregroundColor", "backgroundColor",
        "underline", "strikethrough", "baselineOffset", "letterSpacing", "fontFeatures",
    ]

    static func parse(_ text: String) throws(AttributedTextError) -> AttributedText {
        let json: JSON
        do {
            json = try JSON(parsing: text)
        } catch {
            throw AttributedTextError("the runs are not valid JSON: \(error)")
        }
        guard let items = json.array else { throw AttributedTextError("the runs must be a JSON list of objects") }
        var string = String.UnicodeScalarView()
        var runs: [AttributedRun] = []
        for (index, item) in items.enumerated() {
            func fail(_ what: String) -> AttributedTextError { AttributedTextError("run \(index): \(what)") }
            guard let object = item.object else { throw fail("a run is an object such as {\"text\": \"…\"}, not \(item.kindName)") }
            guard let piece = object["text"]?.string else { throw fail("every run needs \"text\": a string") }
            let attributes: RunAttributes
            do throws(AttributedTextError) {
                attributes = try self.attributes(object)
            } catch {
                throw fail(error.message)
            }
            let start = string.count
            string.append(contentsOf: piece.unicodeScalars)
            runs.append(AttributedRun(range: start..<string.count, attributes: attributes))
        }
        return AttributedText(string: String(string), runs: runs)
    }

    private static func attributes(_ object: [String: JSON]) throws(AttributedTextError) -> RunAttributes {
        var a = RunAttributes()
        for key in object.keys.sorted() {
            let value = object[key]!
            func bad(_ what: String) -> AttributedTextError {
                AttributedTextError("\"\(key)\": \(String(value.text.prefix(40))) is not \(what)")
            }
            switch key {
            case "text": break
            case "name":
                guard let name = value.string, !name.isEmpty, !name.contains(".") else { throw bad("a name (a word without dots)") }
                a.name = name
            case "font":
                guard let name = value.string, let d = try? FontDescriptor(parsing: name) else {
                    throw bad("a font name such as \"DejaVu Sans:bold:italic\"")
                }
                a.family = d.family
                if d.weight != .regular { a.weight = d.weight }
                if d.style != .normal { a.style = d.style }
            case "fontFamily":
                guard let family = value.string, !family.isEmpty else { throw bad("a family name") }
                a.family = family
            case "fontWeight":
                guard let w = value.number.map({ FontWeight(rawValue: Int($0)) }) ?? value.string.flatMap(FontWeight.init(name:)) else {
                    throw bad("a weight (100…1000, \"bold\", \"light\", …)")
                }
                a.weight = w
            case "fontStyle":
                guard let s = value.string.flatMap({ $0 == "oblique" ? .italic : FontStyle(rawValue: $0) }) else {
                    throw bad("a style (\"normal\", \"italic\")")
                }
                a.style = s
            case "fontSize":
                guard let n = value.number, n > 0, n <= maximumFontSize else { throw bad("a size in pixels (0…\(Int(maximumFontSize)))") }
                a.size = n
            case "foregroundColor", "backgroundColor":
                guard let c = color(value) else { throw bad("a colour (\"#rrggbb\", \"#rrggbbaa\", a CSS name or [r, g, b, a] in 0…1)") }
                if key == "foregroundColor" { a.foregroundColor = c } else { a.backgroundColor = c }
            case "underline":
                guard let u = value.bool.map({ $0 ? UnderlineStyle.single : .none }) ?? value.string.flatMap(UnderlineStyle.init(rawValue:))
                else { throw bad("true, false, \"single\", \"double\" or \"low\"") }
                a.underline = u
            case "strikethrough":
                guard let b = value.bool else { throw bad("true or false") }
                a.strikethrough = b
            case "baselineOffset", "letterSpacing":
                guard let n = value.number, abs(n) <= maximumFontSize else { throw bad("a length in pixels") }
                if key == "baselineOffset" { a.rise = n } else { a.letterSpacing = n }
            case "fontFeatures":
                guard let list = value.array.map({ $0.compactMap(\.string) }) ?? value.string.map({ [$0] }) else {
                    throw bad("a list of OpenType features such as [\"tnum\", \"smcp\"]")
                }
                a.features = try Markup.features(list.joined(separator: ","))
            default:
                throw AttributedTextError("\"\(key)\" is not a run key; use \(keys.joined(separator: ", "))")
            }
        }
        return a
    }

    private static func color(_ value: JSON) -> Color? {
        if let s = value.string { return Color(css: s) }
        guard let items = value.array?.compactMap(\.number), (3...4).contains(items.count),
            items.allSatisfy({ (0...1).contains($0) })
        else { return nil }
        return Color(red: items[0], green: items[1], blue: items[2], alpha: items.count == 4 ? items[3] : 1)
    }
}
