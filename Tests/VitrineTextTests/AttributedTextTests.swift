import Testing
import VitrineCore
@testable import VitrineText

/// Reading attributed strings: the Pango markup subset and JSON runs, and the errors
/// that refuse bad ones.
@Suite struct AttributedTextTests {
    /// The runs' texts with their attributes.
    func pieces(_ text: AttributedText) -> [(String, RunAttributes)] {
        let scalars = Array(text.string.unicodeScalars)
        return text.runs.map { (String(String.UnicodeScalarView(scalars[$0.range])), $0.attributes) }
    }

    @Test func markupSpansAndConvenienceTags() throws {
        let text = try AttributedText(
            parsing: "<b>Soup</b> of the day <span name=\"price\" foreground=\"#cc0000\" font_features=\"tnum\">4.50&#160;&euro;</span>"
                .replacing("&euro;", with: "&#x20AC;"))
        #expect(text.string == "Soup of the day 4.50\u{A0}€")
        let p = pieces(text)
        #expect(p.map(\.0) == ["Soup", " of the day ", "4.50\u{A0}€"])
        #expect(p[0].1.weight == .bold)
        #expect(p[1].1 == RunAttributes())
        #expect(p[2].1.name == "price")
        #expect(p[2].1.foregroundColor == Color(css: "#cc0000"))
        #expect(p[2].1.features == [FontFeature("tnum")])
        #expect(text.names == ["price"])
    }

    @Test func nestedSpansMergeAndScale() throws {
        let text = try AttributedText(
            parsing:
                "<span font_family='DejaVu Serif' size='15pt'>a<i>b<big>c</big></i><span underline='double' strikethrough='true' rise='2048' letter_spacing='1pt'>d</span></span><tt>e</tt>&lt;&amp;&gt;&quot;&apos;"
        )
        #expect(text.string == "abcde<&>\"'")
        let p = pieces(text)
        #expect(p[0].1.family == "DejaVu Serif" && p[0].1.size == 20)
        #expect(p[1].1.style == .italic && p[1].1.family == "DejaVu Serif")
        #expect(p[2].1.sizeScale == 1.2 && p[2].1.size == 20)
        #expect(p[3].1.underline == .double && p[3].1.strikethrough == true && p[3].1.rise == 2 && p[3].1.letterSpacing == 1)
        #expect(p[4].1.family == "monospace")
    }

    @Test func markupSizesAndWeights() throws {
        let text = try AttributedText(parsing: "<span size='12288' weight='600'>a</span><span size='150%' weight='light'>b</span><small>c</small>")
        let p = pieces(text)
        #expect(p[0].1.size == 16 && p[0].1.weight == .semibold)
        #expect(p[1].1.sizeScale == 1.5 && p[1].1.weight == .light)
        #expect(abs((p[2].1.sizeScale ?? 0) - 1 / 1.2) < 1e-12)
    }

    @Test(arguments: [
        ("<b>bold", "<b> is never closed"),
        ("<b>x</i>", "character 5: </i> closes <b>"),
        ("a</b>", "character 2: </b> closes nothing"),
        ("<blink>x</blink>", "character 1: <blink> is not a tag"),
        ("<span colour='red'>x</span>", "'colour' is not a span attribute"),
        ("<span foreground='reddish'>x</span>", "foreground=\"reddish\": not a colour"),
        ("<span weight='heavyish'>x</span>", "weight=\"heavyish\": not a weight"),
        ("<span size='huge'>x</span>", "size=\"huge\": not a size"),
        ("<span font_features='tnumx'>x</span>", "font_features"),
        ("<span foreground=red>x</span>", "must be quoted"),
        ("ab&nbsp;", "character 3: '&nbsp;' is not an entity"),
        ("a & b", "character 3: '&' starts no entity"),
        ("a <b", "character 3: '<' starts a tag that never ends"),
        ("<b weight='bold'>x</b>", "<b> takes no attributes"),
    ])
    func badMarkupIsRefusedWithItsPlace(markup: String, message: String) {
        #expect {
            _ = try AttributedText(parsing: markup)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func jsonRuns() throws {
        let text = try AttributedText(
            parsing: """
                [{"text": "Soup "}, {"text": "4.50", "name": "price", "foregroundColor": "#c00", "backgroundColor": [0, 0, 1, 0.5],
                  "fontFeatures": ["tnum", "smcp"], "font": "DejaVu Serif:bold", "fontSize": 30, "underline": true,
                  "strikethrough": false, "baselineOffset": -3, "letterSpacing": 2}, {"text": "", "fontStyle": "italic"},
                 {"text": "!", "fontWeight": 300, "fontFamily": "DejaVu Sans Mono", "underline": "double"}]
                """)
        #expect(text.string == "Soup 4.50!")
        let p = pieces(text)
        #expect(p.map(\.0) == ["Soup ", "4.50", "!"])
        let price = p[1].1
        #expect(price.name == "price" && price.foregroundColor == Color(css: "#c00"))
        #expect(price.backgroundColor == Color(red: 0, green: 0, blue: 1, alpha: 0.5))
        #expect(price.features == [FontFeature("tnum"), FontFeature("smcp")])
        #expect(price.family == "DejaVu Serif" && price.weight == .bold && price.size == 30)
        #expect(price.underline == .single && price.strikethrough == false && price.rise == -3 && price.letterSpacing == 2)
        #expect(p[2].1.weight == .light && p[2].1.family == "DejaVu Sans Mono" && p[2].1.underline == .double)
    }

    @Test(arguments: [
        ("[{\"text\": \"a\"},]", "not valid JSON"),
        ("[\"a\"]", "run 0: a run is an object"),
        ("[{\"text\": \"a\"}, {\"name\": \"b\"}]", "run 1: every run needs \"text\""),
        ("[{\"text\": \"a\", \"colour\": \"red\"}]", "run 0: \"colour\" is not a run key"),
        ("[{\"text\": \"a\", \"foregroundColor\": \"reddish\"}]", "run 0: \"foregroundColor\": \"reddish\" is not a colour"),
        ("[{\"text\": \"a\", \"fontSize\": -2}]", "run 0: \"fontSize\": -2 is not a size"),
        ("[{\"text\": \"a\", \"name\": \"a.b\"}]", "run 0: \"name\""),
        ("[{\"text\": \"a\", \"fontFeatures\": [\"tnumx\"]}]", "run 0: font_features"),
    ])
    func badRunsAreRefusedWithTheRun(json: String, message: String) {
        #expect {
            _ = try AttributedText(parsing: json)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func theLayerPropertyRefusesBadTextAndChangesNothing() {
        #expect(TextLayer.attributedProblem("<b>x</b>") == nil)
        #expect(TextLayer.attributedProblem("") == nil)
        #expect(TextLayer.attributedProblem("<b>x")?.contains("never closed") == true)
        #expect(TextLayer.attributedProblem(String(repeating: "<b>x</b>", count: TextLayer.maximumLength + 1))?.contains("at most") == true)
    }
}
