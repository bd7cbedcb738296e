import Foundation
import Glibc
import Testing
import VitrineProtocol
import VitrineSignage

@testable import VitrineConfig

/// `[scenes.NAME]`, `[[playlists]]` and `[[schedules]]`: the café example of docs/SIGNAGE.md
/// loads and plays what it says, and mistakes are refused with the table's line.
@Suite(.serialized) struct SignageConfigTests {
    init() {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    @Test func theCafeExampleLoadsAndPlaysItsDay() throws {
        let path = repositoryRoot.appendingPathComponent("docs/examples/cafe/vitrine.toml").path
        let config = try Configuration.load(contentsOf: path)
        let signage = config.signage
        #expect(signage.scenes.keys.sorted() == ["breakfast", "evening", "lunch", "promo"])
        #expect(signage.scenes["lunch"]?.content?.layers.count == 9)
        #expect(signage.library.playlists.keys.sorted() == ["midday", "morning", "night", "offers"])
        let library = signage.library
        let entries = library.entries(output: "HDMI-A-1", root: "root", primary: true)
        // Monday 7 December 2026 (CET: UTC+1).
        let monday = 1_796_598_000.0  // 00:00
        func playlist(at hour: Double) -> String? { library.decision(for: entries, at: monday + hour * 3600).playlist }
        #expect(playlist(at: 8) == "morning")
        #expect(playlist(at: 12) == "midday")
        #expect(playlist(at: 15.5) == "night")
        #expect(playlist(at: 23) == "morning", "closed: the fallback")
        #expect(playlist(at: 5 * 24 + 15.5) == "midday", "Saturday lunch lasts until 16:00")
        #expect(playlist(at: 5 * 24 + 16.5) == "morning", "Saturday 16:30: the fallback")
        let player = PlaylistPlayer(output: "HDMI-A-1", root: "root", primary: true)
        let names = (0..<10).map { i in player.next(in: library, at: monday + 12 * 3600 + Double(i) * 30)!.item.name }
        #expect(names == ["lunch", "lunch", "lunch", "lunch", "promo", "lunch", "lunch", "lunch", "lunch", "promo"])
    }

    static let scene = """
        [scenes.menu]
        [[scenes.menu.layers]]
        id = "title"

        """

    @Test func mistakesAreRefusedWithTheirLine() throws {
        let playlist = Self.scene + "[[playlists]]\nname = \"a\"\n"
        let good = playlist + "items = [{ scene = \"menu\", duration = 5 }]\n"
        let cases: [(String, String)] = [
            (playlist + "items = [{ scene = \"lunch\", duration = 5 }]\n", "vitrine.toml:6: playlists[0].items[0]: there is no scene 'lunch'"),
            (playlist + "items = [{ file = \"/nowhere/x.json\", duration = 5 }]\n", "the scene file /nowhere/x.json does not exist"),
            (playlist + "items = [{ scene = \"menu\" }]\n", "needs \"duration\""),
            (playlist + "items = [{ scene = \"menu\", duration = 5, transition = { transition = \"wipe\" } }]\n", "wipe"),
            (good + "[[schedules]]\nplaylist = \"b\"\n", "there is no playlist 'b'"),
            (good + "[[schedules]]\nplaylist = \"a\"\nfrom = \"25:00\"\nto = \"26:00\"\n", "HH:MM"),
            (
                good + "[[schedules]]\nplaylist = \"a\"\nfallback = true\n[[schedules]]\nname = \"b\"\nplaylist = \"a\"\nfallback = true\n",
                "vitrine.toml:10: schedules[1]: schedule 'b' overlaps 'a'"
            ),
            ("[scenes.menu]\n", "a scene needs file"),
        ]
        for (text, words) in cases {
            let error = try #require(failure(text))
            #expect(error.description.contains(words), "\(error.description)")
        }
    }
}
