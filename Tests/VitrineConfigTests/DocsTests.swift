import Foundation
import Testing
@testable import VitrineConfig

@Suite struct DocsTests {
    static let docs = (try? String(contentsOf: repositoryRoot.appendingPathComponent("docs/CONFIG.md"), encoding: .utf8)) ?? ""

    /// The part of docs/CONFIG.md under the heading `## [section]` (or `### [section]`).
    private func chapter(_ section: String) -> Substring? {
        guard let start = Self.docs.range(of: "## [\(section)]\n") else { return nil }
        let rest = Self.docs[start.upperBound...]
        return rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
    }

    @Test func everyKeyHasARowInItsSection() throws {
        for (section, keys) in Configuration.sections {
            let text = try #require(chapter(section), "docs/CONFIG.md has no ## [\(section)]")
            for key in keys where key != "spring" {
                #expect(text.contains("| `\(key)` |"), "docs/CONFIG.md lacks a row for \(section).\(key)")
            }
        }
        let spring = try #require(chapter("animation.spring"))
        for key in Configuration.SpringDefaults.keys { #expect(spring.contains("| `\(key)` |"), "animation.spring.\(key)") }
    }

    @Test func errorExamplesAreWhatTheParserSays() throws {
        let examples = [
            "[animation]\nimplicit_duraton = 1",
            "[outptu]\nx = 1",
            "level = 1",
            "[output]\nbackground = \"blurple\"",
            "[socket]\nmode = 660",
            "[scene]\nfile = \"x.json\"\n[[scene.layers]]\nid = \"a\"",
            "[[scene.layers]]\nid = \"a\"\n\n[[scene.layers]]\nid = \"b\"\ncolour = \"red\"",
            "[output]\nrotation = \n",
        ]
        for text in examples {
            let error = try #require(failure(text))
            #expect(Self.docs.contains(error.description + "\n"), "docs/CONFIG.md does not show: \(error)")
        }
    }
}
