import Glibc
import Testing
import VitrineProtocol
import VitrineSignage
import VitrineSystem

/// Schedules evaluated on the local wall clock (TZ=Europe/Berlin): windows across
/// midnight, the daylight-saving days of 2026, priorities, the fallback, interrupts by
/// slot and by share of time, conflicts refused, items' own conditions.
@Suite(.serialized) struct ScheduleTests {
    init() {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    static func item(_ name: String, seconds: Double = 10, when: String? = nil) throws -> PlaylistItem {
        let text = #"{"scene": "\#(name)", "duration": \#(seconds)"# + (when.map { #", "when": "# + $0 } ?? "") + "}"
        return try PlaylistItem(json: try JSON(parsing: text), context: "item")
    }

    static func playlist(_ name: String, _ items: [String]) throws -> Playlist {
        Playlist(name: name, items: try items.map { try item($0) })
    }

    static func entry(_ text: String) throws -> ScheduleEntry { try ScheduleEntry(json: try JSON(parsing: text), context: "schedule") }

    static func library(_ entries: [String]) throws -> SignageLibrary {
        try SignageLibrary(
            playlists: [
                try playlist("breakfast", ["b1", "b2"]), try playlist("lunch", ["l1", "l2", "l3"]), try playlist("evening", ["e1"]),
                try playlist("promo", ["p1", "p2"]), try playlist("idle", ["i1"]),
            ], schedules: try entries.map(entry))
    }

    static func decision(_ library: SignageLibrary, at instant: Double) -> String? {
        library.decision(for: library.entries(output: "HDMI-A-1", root: "root", primary: true), at: instant).playlist
    }

    @Test func aWindowPastMidnightBelongsToTheDayItBegins() throws {
        // Friday 4 December 2026, 22:00–02:00: Friday night into Saturday morning.
        let library = try Self.library([#"{"playlist": "evening", "days": ["fri"], "from": "22:00", "to": "02:00"}"#])
        #expect(Self.decision(library, at: 1_796_418_000 - 60) == nil, "Friday 21:59 CET")
        #expect(Self.decision(library, at: 1_796_418_000) == "evening", "Friday 22:00 CET (21:00 UTC)")
        #expect(Self.decision(library, at: 1_796_423_400) == "evening", "Friday 23:30")
        #expect(Self.decision(library, at: 1_796_430_600) == "evening", "Saturday 01:30, still Friday's window")
        #expect(Self.decision(library, at: 1_796_434_200) == nil, "Saturday 02:30")
        #expect(Self.decision(library, at: 1_796_506_200) == nil, "Saturday 22:30: Saturday is not in days")
    }

    @Test func boundariesFollowTheClockOnTheDaylightSavingDays() throws {
        let library = try Self.library([
            #"{"playlist": "breakfast", "from": "06:00", "to": "11:00"}"#, #"{"playlist": "evening", "from": "22:00", "to": "06:00"}"#,
        ])
        let entries = library.entries(output: "HDMI-A-1", root: "root", primary: true)
        // 29 March 2026, 00:30 CET: the clock jumps from 02:00 to 03:00; 06:00 CEST is 04:00 UTC.
        #expect(library.nextBoundary(for: entries, after: 1_774_740_600) == 1_774_756_800)
        #expect(Self.decision(library, at: 1_774_756_800 - 1) == "evening")
        #expect(Self.decision(library, at: 1_774_756_800) == "breakfast")
        // 25 October 2026, 00:30 CEST: 03:00 goes back to 02:00; 06:00 CET is 05:00 UTC.
        #expect(library.nextBoundary(for: entries, after: 1_792_881_000) == 1_792_904_400)
        #expect(Self.decision(library, at: 1_792_904_400 - 1) == "evening")
        #expect(Self.decision(library, at: 1_792_904_400) == "breakfast")
        // The repeated hour (02:00–03:00 twice) is evening both times.
        for utc in [1_792_890_000.0, 1_792_893_600] { #expect(Self.decision(library, at: utc) == "evening", "\(utc)") }
    }

    @Test func theHighestPriorityWinsAndTheFallbackFillsTheRest() throws {
        let library = try Self.library([
            #"{"playlist": "breakfast", "from": "06:00", "to": "11:00", "priority": 1}"#,
            #"{"playlist": "lunch", "from": "10:00", "to": "14:00", "priority": 2, "days": ["mon"]}"#,
            #"{"playlist": "idle", "fallback": true}"#,
        ])
        let monday = 1_796_634_000.0  // Monday 7 December 2026, 10:00 CET
        #expect(Self.decision(library, at: monday) == "lunch")
        #expect(Self.decision(library, at: monday - 1800) == "breakfast")
        #expect(Self.decision(library, at: monday + 5 * 3600) == "idle")
        #expect(Self.decision(library, at: monday + 86_400) == "breakfast", "Tuesday 10:00: lunch is on Mondays only")
    }

    @Test func conflictsAreRefusedWithTheirReason() throws {
        let a = #""name": "a", "playlist": "breakfast", "from": "06:00", "to": "11:00""#
        let b = #""name": "b", "playlist": "lunch", "from": "10:00", "to": "14:00""#
        let error = try #require(throws: ProtocolError.self) { try Self.library(["{\(a)}", "{\(b)}"]) }
        #expect(error.message.contains("'b' overlaps 'a'"), "\(error.message)")
        // Another priority, other days, other dates, or touching ends: no conflict.
        _ = try Self.library(["{\(a)}", #"{\#(b), "priority": 1}"#])
        _ = try Self.library([#"{\#(a), "days": ["mon"]}"#, #"{\#(b), "days": ["tue"]}"#])
        _ = try Self.library(["{\(a)}", #"{"name": "b", "playlist": "lunch", "from": "11:00", "to": "14:00"}"#])
        _ = try Self.library([#"{\#(a), "dates": ["2026-12-01", "2026-12-10"]}"#, #"{\#(b), "dates": ["2026-12-11", "2026-12-24"]}"#])
        // Saturday night past midnight meets Sunday morning.
        #expect(throws: ProtocolError.self) {
            try Self.library([
                #"{"name": "a", "playlist": "evening", "days": ["sat"], "from": "22:00", "to": "02:00"}"#,
                #"{"name": "b", "playlist": "breakfast", "days": ["sun"], "from": "01:00", "to": "09:00"}"#,
            ])
        }
        #expect(throws: ProtocolError.self) { try Self.library([#"{"playlist": "nothing"}"#]) }
    }

    @Test func anInterruptTakesEveryFifthSlot() throws {
        let library = try Self.library([#"{"playlist": "lunch"}"#, #"{"playlist": "promo", "every": 5}"#])
        let player = PlaylistPlayer(output: "HDMI-A-1", root: "root", primary: true)
        var shown: [String] = []
        for i in 0..<15 {
            let cue = try #require(player.next(in: library, at: 1_796_634_000 + Double(i) * 10))
            shown.append(cue.item.name)
            player.played(cue, seconds: 10)
        }
        #expect(shown == ["l1", "l2", "l3", "l1", "p1", "l2", "l3", "l1", "l2", "p2", "l3", "l1", "l2", "l3", "p1"])
    }

    @Test func anInterruptByShareTakesItsPartOfTheTime() throws {
        let library = try Self.library([#"{"playlist": "lunch"}"#, #"{"playlist": "promo", "share": 20}"#])
        let player = PlaylistPlayer(output: "HDMI-A-1", root: "root", primary: true)
        var promo = 0.0, all = 0.0
        for i in 0..<500 {
            let cue = try #require(player.next(in: library, at: 1_796_634_000 + Double(i)))
            let seconds = cue.interrupt ? 15.0 : 10.0
            player.played(cue, seconds: seconds)
            all += seconds
            if cue.interrupt { promo += seconds }
        }
        #expect(abs(promo / all - 0.2) < 0.01, "\(promo / all)")
    }

    @Test func itemsOutsideTheirWindowArePassedOver() throws {
        let playlist = Playlist(name: "menu", items: [try Self.item("always"), try Self.item("mornings", when: #"{"from": "06:00", "to": "11:00"}"#)])
        let library = try SignageLibrary(playlists: [playlist], schedules: [try Self.entry(#"{"playlist": "menu"}"#)])
        let player = PlaylistPlayer(output: "HDMI-A-1", root: "root", primary: true)
        let morning = 1_796_634_000.0 - 3600, afternoon = morning + 6 * 3600
        #expect((0..<4).map { _ in player.next(in: library, at: morning)!.item.name } == ["always", "mornings", "always", "mornings"])
        #expect((0..<3).map { _ in player.next(in: library, at: afternoon)!.item.name } == ["always", "always", "always"])
    }

    @Test func aRequestedPlaylistPlaysOnceThenTheScheduleAgain() throws {
        let library = try Self.library([#"{"playlist": "lunch"}"#])
        let player = PlaylistPlayer(output: "HDMI-A-1", root: "root", primary: true)
        #expect(player.next(in: library, at: 0)?.item.name == "l1")
        try player.play(library.playlists["promo"]!, item: nil)
        let names = (0..<4).map { _ in player.next(in: library, at: 0)!.item.name }
        #expect(names == ["p1", "p2", "l2", "l3"])
        try player.play(library.playlists["promo"]!, item: 1)
        #expect(player.next(in: library, at: 0)?.item.name == "p2")
        #expect(throws: ProtocolError.self) { try player.play(library.playlists["promo"]!, item: 7) }
    }
}
