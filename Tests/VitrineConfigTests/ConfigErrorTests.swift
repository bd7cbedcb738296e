import Foundation
import Testing
@testable import VitrineConfig

@Suite struct ConfigErrorTests {
    @Test func wrongTypeRendersFileLineKeyAndExpectedForm() throws {
        let text = """
            # Vitrine

            [output]
            backend = "drm"

            [animation]
            implicit_duration = 0.25

            [animation.spring]
            duration = 1
            speed = 0.3
            damping = "soft"
            """
        let error = try #require(failure(text))
        #expect(error.description == #"/etc/vitrine/vitrine.toml:12: animation.spring.damping: must be a number ≥ 0, got "soft""#)
        #expect(error.file == configPath && error.line == 12 && error.key == "animation.spring.damping")
    }

    @Test func unknownKeysSuggestTheNearestKnownOne() throws {
        let typo = try #require(failure("[animation]\nimplicit_duraton = 1\n"))
        #expect(typo.line == 2 && typo.key == "animation.implicit_duraton")
        #expect(typo.message.contains("did you mean 'implicit_duration'?"))
        #expect(typo.description.hasPrefix("/etc/vitrine/vitrine.toml:2: animation.implicit_duraton: unknown key"))

        let camel = try #require(failure("\n[limits]\nlayers = 5\nlineBytes = 4096\n"))
        #expect(camel.line == 4 && camel.key == "limits.lineBytes" && camel.message.contains("'line_bytes'"))

        let spring = try #require(failure("[animation.spring]\ndampning = 3\n"))
        #expect(spring.line == 2 && spring.key == "animation.spring.dampning" && spring.message.contains("'damping'"))

        let far = try #require(failure("[output]\nzzz = 1\n"))
        #expect(far.key == "output.zzz" && !far.message.contains("did you mean") && far.message.contains("backend"))

        let section = try #require(failure("[outptu]\nbackend = \"drm\"\n"))
        #expect(section.line == 1 && section.key == "outptu" && section.message.contains("did you mean [output]?"))
        let nested = try #require(failure("[spring]\ndamping = 10\n"))
        #expect(nested.key == "spring" && nested.message.hasPrefix("unknown section; did you mean [animation.spring]? The sections are"))
        let unlike = try #require(failure("[zzzzzzzz]\nx = 1\n"))
        #expect(unlike.message.hasPrefix("unknown section; the sections are [animation]"))

        let first = try #require(failure("[output]\nzebra = 1\napple = 2\n"))
        #expect(first.key == "output.zebra" && first.line == 2)

        let shared = try #require(failure("mode = \"0660\"\n"))
        #expect(shared.message.hasSuffix("goes under [output] or [socket]"))

        let loose = try #require(failure("level = \"debug\"\n"))
        #expect(loose.line == 1 && loose.key == "level" && loose.message.contains("[logging]"))
    }

    @Test func wrongTypes() throws {
        let cases: [(String, String, Int, String)] = [
            ("[output]\nbuffers = \"two\"", "output.buffers", 2, "must be 2 or 3, got \"two\""),
            ("[output]\nrotation = \"90\"", "output.rotation", 2, "must be 0, 90, 180 or 270"),
            ("[socket]\ngroup = 7", "socket.group", 2, "must be a string, got 7"),
            ("[fonts]\ndirectories = \"/opt/fonts\"", "fonts.directories", 2, "must be an array of absolute directory paths"),
            ("[logging]\nlevel = \"loud\"", "logging.level", 2, #"one of "trace", "debug", "info", "notice", "warning", "error" or "critical", got "loud""#),
            ("[rolling_number]\ndirection = \"sideways\"", "rolling_number.direction", 2, #"one of "auto", "up" or "down""#),
            ("output = 5", "output", 1, "must be a table ([output]), got 5"),
            ("[animation]\nimplicit_timing = \"bouncy\"", "animation.implicit_timing", 2, "\"easeInEaseOut\""),
            ("[animation]\nimplicit_timing = [1.5, 0, 1, 1]", "animation.implicit_timing", 2, "x1 and x2 in 0…1"),
            ("[output]\nheadless_rate = 1979-05-27", "output.headless_rate", 2, "got 1979-05-27"),
        ]
        for (text, key, line, message) in cases {
            let error = try #require(failure(text))
            #expect(error.key == key, "\(text)")
            #expect(error.line == line, "\(text)")
            #expect(error.message.contains(message), "\(text): \(error.message)")
        }
    }

    @Test func outOfRangeValues() throws {
        let cases: [(String, String, String)] = [
            ("[output]\nbuffers = 4", "output.buffers", "must be 2 or 3, got 4"),
            ("[output]\nrotation = 45", "output.rotation", "got 45"),
            ("[output]\nheadless_rate = inf", "output.headless_rate", "1…1000, got inf"),
            ("[output]\nheadless_rate = nan", "output.headless_rate", "got nan"),
            ("[animation]\nimplicit_duration = -0.1", "animation.implicit_duration", "0…3600, got -0.1"),
            ("[animation.spring]\nmass = 0", "animation.spring.mass", "> 0"),
            ("[animation.spring]\nstiffness = -inf", "animation.spring.stiffness", "got -inf"),
            ("[rolling_number]\ncharacter_spacing = 20", "rolling_number.character_spacing", "0.1…10, got 20"),
            ("[limits]\nlayers = 0", "limits.layers", "1…1000000, got 0"),
            ("[limits]\nclients = 2.5", "limits.clients", "a whole number in 1…10000, got 2.5"),
            ("[output]\nheadless_size = \"0x800\"", "output.headless_size", "each side 1…16384"),
        ]
        for (text, key, message) in cases {
            let error = try #require(failure(text))
            #expect(error.key == key && error.line == 2, "\(text)")
            #expect(error.message.contains(message), "\(text): \(error.message)")
        }
    }

    @Test func badColoursModesAndPaths() throws {
        let cases: [(String, String, String)] = [
            ("[output]\nbackground = \"blurple\"", "output.background", "a colour: \"#rrggbb\""),
            ("[output]\nbackground = \"#12345\"", "output.background", "got \"#12345\""),
            ("[output]\nbackground = [1, 2, 3]", "output.background", "in 0…1, got [1, 2, 3]"),
            ("[scene]\nbackground = \"nope\"", "scene.background", "a colour"),
            ("[output]\nmode = \"1920x\"", "output.mode", #""WxH@Hz" such as "1920x1080@60", got "1920x""#),
            ("[output]\nmode = \"1920x1080@0\"", "output.mode", "got \"1920x1080@0\""),
            ("[output]\nmode = \"best\"", "output.mode", "\"preferred\""),
            ("[socket]\npath = \"vitrine.sock\"", "socket.path", "an absolute path"),
            ("[socket]\npath = \"/run/\(String(repeating: "v", count: 120)).sock\"", "socket.path", "at most 107 bytes"),
            ("[socket]\nscreenshot_dir = \"shots\"", "socket.screenshot_dir", "an absolute path"),
            ("[socket]\nmode = 660", "socket.mode", "\"0660\" or 0o660"),
            ("[socket]\nmode = \"0999\"", "socket.mode", "got \"0999\""),
            ("[socket]\nmode = 0o1777", "socket.mode", "at most 0777"),
            ("[fonts]\ndirectories = [\"fonts\"]", "fonts.directories", "absolute"),
            ("[output]\ndevice = \"card0\"", "output.device", "/dev/dri/card0"),
        ]
        for (text, key, message) in cases {
            let error = try #require(failure(text))
            #expect(error.key == key && error.line == 2, "\(text)")
            #expect(error.message.contains(message), "\(text): \(error.message)")
        }
        #expect(try parse("[socket]\nmode = 0o640").socket.mode == 0o640)
    }

    @Test func syntaxErrorsCarryLineAndColumn() throws {
        let error = try #require(failure("[output]\nbackend = \"drm\"\nrotation = \n"))
        #expect(error.file == configPath && error.line == 3 && error.column != nil && error.key == nil)
        #expect(error.description.hasPrefix("/etc/vitrine/vitrine.toml:3:"))

        let duplicate = try #require(failure("[output]\nbuffers = 2\nbuffers = 3\n"))
        #expect(duplicate.line == 3)
    }

    /// Found by Fuzz/'s fuzz-config: toml++ failed an assertion, aborting the process,
    /// on a table header whose name starts with another character (upstream
    /// marzer/tomlplusplus#294), on a `}` where an array expects a value and on a bare
    /// value that is no TOML value (`1979-05-27T:`).
    @Test func whatTOMLPlusPlusWouldAbortOnIsRefused() throws {
        for (text, line, column, written) in [
            ("i=1979-05-27T:", 1, 3, "1979-05-27T:"), ("[output]\nbackend = drm\n", 2, 11, "drm"),
            ("a = [1, 0x, 2]", 1, 9, "0x"), ("b = { c = 1979-05-27 07:32 }", 1, 11, "1979-05-27 07:32"),
        ] {
            let error = try #require(failure(text), "\(text)")
            #expect(error.line == line && error.column == column && error.message == TOMLGuard.valueMessage(written), "\(text): \(error)")
        }
        for (text, line, column) in [("i=[}", 1, 4), ("a = [1,\n  }", 2, 3), ("b = [{}, }]", 1, 10), ("c = { d = [ } }", 1, 13)] {
            let error = try #require(failure(text), "\(text)")
            #expect(error.line == line && error.column == column && error.message == TOMLGuard.braceMessage, "\(text): \(error)")
        }
        for (text, line, column) in [
            ("[{", 1, 2), ("[[=", 1, 3), ("[[[a]]]", 1, 3), ("[ &", 1, 3), ("\u{FEFF}[.a]", 1, 3),
            ("a = 1 # [\n\n  [ \u{3000}b]", 3, 5), ("s = \"\"\"\n[x]\n\"\"\"\n[\n]", 4, 2),
        ] {
            let error = try #require(failure(text), "\(text)")
            #expect(error.line == line && error.column == column && error.key == nil, "\(text): \(error)")
            #expect(error.message == TOMLGuard.headerMessage)
        }
        for valid in [
            "[output]\n[ \"quoted\" . key ]\n[[scene.layers]]\n['literal']\n[_]\n[-]\n[9]\n[[ a ]]",
            "a = [\n[{ b = 1 }],\n  [ ],\n# [{\n{ c = \"[{\" }, ''']\n[{'''\n]\nd = \"\"\"\n[{\"\"\"\"\ne = '[{'",
            "f = \"\\\"[{\"\ng = \"\"\"\\\n[{\"\"\"",
            "h = [{ i = [] }, {}, [ [] ], ]\nj = { k = [{}], l = \"}\" }",
            "m = [1, -2, +3, 0, 1_000, 0xDEAD_beef, 0o755, 0b1101, 1.0, -0.5e-3, 5e+22, 1e06, inf, -inf, +nan, -0.0, true, false]",
            "n = [1979-05-27T07:32:00Z, 1979-05-27T00:32:00.999999-07:00, 1979-05-27 07:32:00Z, 1979-05-27t07:32:00, 1979-05-27, 00:32:00.5]",
        ] {
            #expect(TOMLGuard.firstMistake(in: valid) == nil, "\(valid)")
            let error = try #require(failure(valid))
            #expect(error.column == nil && error.message.hasPrefix("unknown"), "toml++ read it whole: \(valid): \(error)")
        }
    }

    /// Found while writing Fuzz/'s fuzz-config: TOMLKit read the text only up to a NUL
    /// byte, so whatever followed it was left out without a word.
    @Test func nulBytesAreRefusedNotTheEndOfTheFile() throws {
        let error = try #require(failure("[output]\nbackend = \"headless\"\0\n[socket]\npath = \"relative.sock\"\n"))
        #expect(error.line == 2 && error.column == 21 && error.key == nil)
        #expect(error.description == "/etc/vitrine/vitrine.toml:2:21: a NUL byte, which TOML does not allow (is this a binary file?)")
        #expect(throws: ConfigError(file: configPath, line: 1, column: 1, message: "a NUL byte, which TOML does not allow (is this a binary file?)")) {
            try Configuration(contents: Data([0, 0x0A]), source: configPath)
        }
        do {
            _ = try Configuration(contents: Data([0x5B, 0xFF, 0x5D]), source: configPath)
            Issue.record("parsed bytes that are not UTF-8")
        } catch {
            #expect(error.line == nil && error.message.hasPrefix("cannot read the configuration: the file is not UTF-8 text"))
        }
    }

    @Test func keysInInlineTablesPointAtTheirTable() throws {
        let error = try #require(failure("[output]\nbuffers = 2\n\n[animation]\nspring = { damping = -1 }\n"))
        #expect(error.key == "animation.spring.damping" && error.line == 5)
    }

    @Test func unreadableFilesSaySo() throws {
        do {
            _ = try Configuration.load(contentsOf: "/nonexistent/vitrine.toml")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.file == "/nonexistent/vitrine.toml" && error.line == nil)
            #expect(error.description == "/nonexistent/vitrine.toml: cannot read the configuration: no such file")
        }
        #expect(throws: ConfigError(file: "/tmp", message: "cannot read the configuration: it is a directory, not a regular file")) {
            try Configuration.load(contentsOf: "/tmp")
        }
    }

    @Test func locatorFollowsTablesArraysAndDottedKeys() {
        let locator = SourceLocator(
            """
            top = 1
            [a]
            b.c = 2
            [[a.list]]
            x = 1
            [[a.list]]
            x = 2
            [a.list.inner]
            y = "z" # comment
            """)
        #expect(locator.line(of: "top") == 1)
        #expect(locator.line(of: "a.b.c") == 3)
        #expect(locator.line(of: "a.list[0].x") == 5)
        #expect(locator.line(of: "a.list[1].x") == 7)
        #expect(locator.line(of: "a.list[1].inner.y") == 9)
        #expect(locator.line(of: "a.list[1].missing") == 6)
        #expect(locator.line(of: "elsewhere") == nil)
    }
}
