import Foundation
import Glibc
import Testing
import VitrineDaemonTestSupport
import VitrineJSON

/// Proof of play from end to end: the real daemon plays SignageTests' playlist (red, green,
/// blue, a second each) on the manual clock with a state directory; `playlog.query` lists
/// the items in the order `playlist.item` announced them, each ended and completed with its
/// first frame's digest; and after a SIGKILL a new daemon on the same directory still has
/// every entry written before it.
@Suite struct PlayLogPlaylistTests {
    static func entries(_ c: SocketClient) throws -> [JSON] {
        let reply = try c.request(#"{"cmd": "playlog.query"}"#)
        #expect(reply["ok"] == .bool(true), "\(reply)")
        return reply["result"]?["entries"]?.array ?? []
    }

    /// Asks until `done` holds of the entries (they are written and hashed by workers).
    static func entries(_ c: SocketClient, until done: ([JSON]) -> Bool) throws -> [JSON] {
        let deadline = Date().addingTimeInterval(10)
        var last: [JSON] = []
        while Date() < deadline {
            last = try entries(c)
            if done(last) { return last }
            usleep(100_000)
        }
        return last
    }

    @Test func whatThePlaylistShowedIsLoggedAndSurvivesSIGKILL() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-playlog-e2e-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        var (daemon, c, _) = try SignageTests.start(arguments: ["--state-dir", state], in: directory)
        var announced: [String] = []
        for time in stride(from: 0.25, through: 3.75, by: 0.25) {
            _ = try SignageTests.screenshot(c, at: time)
        }
        for event in c.takeEvents() where event["event"] == .string("playlist.item") {
            if let item = event["item"]?.string { announced.append(item) }
        }
        // The first item began as the daemon started, before the subscription.
        announced.insert("red", at: 0)
        #expect(announced == ["red", "green", "blue", "red"], "\(announced)")

        let ended = { (list: [JSON]) in
            list.filter { $0["end"] != .null && $0["end"] != nil && $0["hash"]?.string != nil }.count >= announced.count - 1
        }
        let logged = try Self.entries(c, until: ended)
        #expect(logged.compactMap { $0["item"]?.string } == announced, "\(logged)")
        #expect(Set(logged.compactMap { $0["playlist"]?.string }) == ["three"])
        let finished = logged.dropLast()
        #expect(finished.allSatisfy { $0["completed"] == .bool(true) }, "\(logged)")
        #expect(finished.allSatisfy { ($0["hash"]?.string?.count ?? 0) >= 8 }, "\(logged)")
        // Red, green and blue look different, so their first frames' digests differ.
        #expect(Set(finished.prefix(3).compactMap { $0["hash"]?.string }).count == min(3, finished.count), "\(logged)")
        for entry in finished {
            let start = entry["start"]?.number ?? 0, end = entry["end"]?.number ?? 0
            #expect(end - start > 0.9 && end - start < 1.6, "an item of a second: \(entry)")
        }

        usleep(1_200_000)
        kill(daemon.pid, SIGKILL)
        _ = daemon.waitForExit()
        (daemon, c, _) = try SignageTests.start(arguments: ["--state-dir", state], in: directory)
        let kept = try Self.entries(c).filter { entry in logged.contains { $0["id"] == entry["id"] } }
        #expect(kept.count == logged.count, "after SIGKILL: \(kept) of \(logged)")
        #expect(kept.compactMap { $0["hash"]?.string } == logged.compactMap { $0["hash"]?.string })
        _ = daemon.stop()
    }
}
