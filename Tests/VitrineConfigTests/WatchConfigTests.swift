import Testing
@testable import VitrineConfig

/// `[[watch]]` (the content watchdog) and `[fleet]`'s thumbnail keys: read, and mistakes named.
@Suite struct WatchConfigTests {
    static let client = "[[clients]]\nname = \"browser\"\ncommand = [\"true\"]\n"

    @Test func watchesAreRead() throws {
        let c = try parse(
            Self.client + """
                [[watch]]
                output = "HDMI-A-1"
                must_change_every = 0.5

                [[watch]]
                layer = "app"
                must_change_every = 10
                restart = "browser"
                """)
        #expect(c.watches.map(\.target) == [.output("HDMI-A-1"), .layer("app")])
        #expect(c.watches[0].mustChangeEvery == 0.5 && c.watches[0].restart.isEmpty && !c.watches[0].reload && c.watches[0].commands.isEmpty)
        #expect(c.watches[1].restart == "browser" && c.watches[1].name == "app")
        #expect(try parse("").watches.isEmpty)
    }

    @Test func mistakesNameTheTableAndKey() throws {
        let cases: [(String, String, String)] = [
            ("[[watch]]\nmust_change_every = 5", "watch[0]", "one layer or one output"),
            ("[[watch]]\nlayer = \"a\"\noutput = \"b\"\nmust_change_every = 5", "watch[0]", "not both or neither"),
            ("[[watch]]\nlayer = \"a\"", "watch[0]", "needs must_change_every"),
            ("[[watch]]\nlayer = \"a\"\nmust_change_every = 0.1", "watch[0].must_change_every", "0.5…86400"),
            ("[[watch]]\nlayer = \"a\"\nmust_change_every = 5\nrestart = \"nobody\"", "watch[0].restart", "no [[clients]] table is named \"nobody\""),
            ("[[watch]]\noutput = \"a\"\nmust_change_every = 5\nreload = true", "watch[0].reload", "needs layer"),
            ("[[watch]]\nlayer = \"a\"\nmust_change_every = 5\ncommands = \"show\"", "watch[0].commands", "array of commands"),
            ("[[watch]]\nlayer = \"a\"\nmust_change_every = 5\ncommands = [{ cmd = \"layer.explode\" }]", "watch[0].commands", "layer.explode"),
            ("[[watch]]\nlayer = \"a\"\nmust_change_every = 5\nmust_change = 3", "watch[0].must_change", "unknown"),
            ("watch = 3", "watch", "[[watch]] tables"),
            ("[fleet]\nthumbnail_every = -1", "fleet.thumbnail_every", "0…86400"),
            ("[fleet]\nthumbnail_width = 8", "fleet.thumbnail_width", "16…4096"),
            ("[fleet]\nthumbnail_format = \"gif\"", "fleet.thumbnail_format", "\"jpeg\" or \"png\""),
            ("[fleet]\nthumbnail_max_bytes = 10", "fleet.thumbnail_max_bytes", "1024…16777216"),
            ("[fleet]\nscreenshot_interval = -1", "fleet.screenshot_interval", "0…3600"),
        ]
        for (text, key, words) in cases {
            let error = try #require(failure((text.hasPrefix("[[watch]]") ? Self.client : "") + text), "\(text)")
            #expect(error.key == key, "\(text) → \(error)")
            #expect(error.message.contains(words), "\(text) → \(error)")
        }
    }
}
