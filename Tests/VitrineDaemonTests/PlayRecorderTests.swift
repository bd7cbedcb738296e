import Foundation
import Testing
import VitrineConfig
import VitrineDaemon
import VitrineProtocol
import VitrineSignage

/// The proof-of-play hook: a recorder set on the coordinator hears of every item a
/// playlist shows — when it began and ended on the wall clock, whether it completed, and
/// the digest of its first frame once its transition is over.
@Suite struct PlayRecorderTests {
    /// What the recorder was told, in order.
    final class Heard: PlayRecorder {
        var began: [(item: String, start: Double)] = []
        var frames: [Int: String] = [:]
        var ended: [Int: (end: Double, completed: Bool)] = [:]

        func began(output: String, playlist: String, item: String, start: Double) -> Int {
            began.append((item, start))
            return began.count
        }
        func firstFrame(_ token: Int, hash: String) { frames[token] = hash }
        func ended(_ token: Int, end: Double, completed: Bool) { ended[token] = (end, completed) }
    }

    /// 64-bit FNV-1a over a 160 × 100 frame of one ARGB colour, its words' bytes little end first.
    static func digest(of argb: UInt32) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for _ in 0..<(160 * 100) {
            for shift in stride(from: 0, to: 32, by: 8) { hash = (hash ^ UInt64((argb >> UInt32(shift)) & 0xff)) &* 0x0000_0100_0000_01b3 }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test func everyItemShownIsRecordedWithItsFirstFrame() throws {
        let toml =
            [("red", "#d03030"), ("green", "#30d030"), ("blue", "#3030d0")].map { SignageTests.scene($0.0, $0.1) }.joined(separator: "\n") + """

                [[playlists]]
                name = "three"
                items = [
                  { scene = "red", duration = 1, transition = \(SignageTests.push) },
                  { scene = "green", duration = 1, transition = \(SignageTests.push) },
                  { scene = "blue", duration = 1, transition = \(SignageTests.push) },
                ]
                [[schedules]]
                playlist = "three"
                """
        let settings = DaemonSettings(configuration: try Configuration(toml: toml, source: "/tmp/vitrine.toml"))
        let client = try InProcessCoordinator(width: 160, height: 100, settings: settings)
        let heard = Heard()
        client.coordinator.playRecorder = heard
        try client.run(#"{"cmd": "playlist.play", "playlist": "three"}"#)
        for frame in 1...200 { try client.run(#"{"cmd": "clock.set", "time": \#(Double(frame) / 60)}"#) }
        try client.run(#"{"cmd": "playlist.play", "playlist": "three", "item": 1}"#)
        // (the schedule goes on where it was before the playlist was played: its second item)
        #expect(heard.began.prefix(5).map(\.item) == ["red", "green", "blue", "green", "green"], "\(heard.began)")
        #expect(heard.began.prefix(4).map(\.start) == [0, 1, 2, 3])
        for token in 1...3 { #expect(heard.ended[token].map { ($0.end, $0.completed) } ?? (0, false) == (Double(token), true), "\(token)") }
        #expect(heard.ended[4].map { ($0.end, $0.completed) } ?? (0, true) == (200.0 / 60, false), "cut short by playlist.play")
        #expect(heard.frames[1] == Self.digest(of: 0xFFD0_3030))
        #expect(heard.frames[2] == Self.digest(of: 0xFF30_D030))
        #expect(heard.frames[3] == Self.digest(of: 0xFF30_30D0))
        #expect(heard.frames[4] == heard.frames[2])
    }
}
