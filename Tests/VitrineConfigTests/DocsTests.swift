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

    /// docs/COMPOSITOR.md's configurations (the quick start's, the clients') are read as
    /// the daemon reads them.
    @Test func compositorExamplesAreValidConfigurations() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/COMPOSITOR.md"), encoding: .utf8)
        var blocks: [String] = []
        var block: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop(while: { $0 == " " })
            if block == nil, trimmed == "```toml" {
                block = []
            } else if let lines = block, trimmed == "```" {
                blocks.append(lines.map { $0.drop(while: { $0 == " " }) }.joined(separator: "\n"))
                block = nil
            } else {
                block?.append(line)
            }
        }
        #expect(blocks.count >= 3)
        for block in blocks {
            do { _ = try Configuration(toml: block, source: "COMPOSITOR.md") } catch {
                Issue.record("docs/COMPOSITOR.md has a configuration the daemon refuses: \(error)\n\(block)")
            }
        }
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

/// docs/CONFIG.md's defaults are the configuration's: each key written into a file with the
/// default its table shows configures the same as leaving the key out.
@Suite struct DocumentedDefaultsTests {
    /// The `(section, key, default)` of every table row under a `## [section]` or
    /// `### [section]` heading, the default being the cell under the table's "default".
    static func documentedDefaults() -> [(section: String, key: String, value: String)] {
        var rows: [(String, String, String)] = []
        var section: String?
        var column: Int?
        for line in DocsTests.docs.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## [") || line.hasPrefix("### [") {
                section = line.split(separator: "[").last.map { String($0.prefix { $0 != "]" }) }
                column = nil
            } else if line.hasPrefix("## ") {
                section = nil
            } else if section != nil, line.hasPrefix("| key |") {
                column = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.firstIndex(of: "default")
            } else if let section, let column, line.hasPrefix("| `") {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count > column else { continue }
                let key = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                let value = cells[column]
                guard value.hasPrefix("`"), value.hasSuffix("`") else { continue }
                rows.append((section, key, String(value.dropFirst().dropLast())))
            }
        }
        return rows
    }

    @Test func everyDocumentedDefaultConfiguresWhatLeavingTheKeyOutDoes() throws {
        let rows = Self.documentedDefaults()
        let documented = Set(rows.map { "\($0.section).\($0.key)" })
        // [scene]'s defaults are "none", and [animation.spring] has a table of its own.
        for (section, keys) in Configuration.sections where section != "scene" {
            for key in keys where key != "spring" {
                #expect(documented.contains("\(section).\(key)"), "docs/CONFIG.md shows no default for \(section).\(key)")
            }
        }
        for (section, key, value) in rows {
            if section == "outputs" {
                let parsed = try Configuration(toml: "[[outputs]]\nconnector = \"A\"\n\(key) = \(value)\n", source: "CONFIG.md")
                #expect(
                    parsed.outputs == [Configuration.OutputEntry(connector: "A")], "docs/CONFIG.md's default of outputs.\(key), \(value), is not the default")
                continue
            }
            if section == "clients" {
                let parsed = try Configuration(toml: "[[clients]]\nname = \"a\"\ncommand = [\"true\"]\n\(key) = \(value)\n", source: "CONFIG.md")
                #expect(
                    parsed.clients == [Configuration.ClientEntry(name: "a", command: ["true"])],
                    "docs/CONFIG.md's default of clients.\(key), \(value), is not the default")
                continue
            }
            if section == "watch" {
                let parsed = try Configuration(toml: "[[watch]]\nlayer = \"a\"\nmust_change_every = 1\n\(key) = \(value)\n", source: "CONFIG.md")
                #expect(
                    parsed.watches == [Configuration.Watch(target: .layer("a"), mustChangeEvery: 1)],
                    "docs/CONFIG.md's default of watch.\(key), \(value), is not the default")
                continue
            }
            let toml = "[\(section)]\n\(key) = \(value)\n"
            let parsed: Configuration
            do { parsed = try Configuration(toml: toml, source: "CONFIG.md") } catch {
                Issue.record("docs/CONFIG.md's default of \(section).\(key), \(value), is refused: \(error)")
                continue
            }
            #expect(parsed == Configuration.default, "docs/CONFIG.md's default of \(section).\(key), \(value), is not the default")
        }
    }
}
