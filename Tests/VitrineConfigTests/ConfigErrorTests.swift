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
        #expect(throws: ConfigError(file: "/tmp", message: "cannot read the configuration: it is a directory")) {
            try Configuration.load(contentsOf: "/tmp")
        }
    }

    @Test func locatorFollowsTablesArraysAndDottedKeys() {
        let locator = SourceLocator("""
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
