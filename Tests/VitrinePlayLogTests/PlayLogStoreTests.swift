import Foundation
import Logging
import Testing
import VitrinePlayLog
import VitrineProtocol
import VitrineSystem
import VitrineTestSupport

/// The play log's files: what is recorded is read back by time range, output, playlist and
/// item; the files stay within their size and age; a line a crash cut short is skipped with
/// a warning, and writing goes on after it.
@Suite struct PlayLogStoreTests {
    /// A fresh directory (removed by the caller) and a store in `playlog/` under it.
    static func store(maxBytes: Int = 64 << 20, keepDays: Double = 90, logger: Logger = Logger(label: "test")) throws -> (String, PlayLogStore) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("playlog-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return (directory, PlayLogStore(directory: directory + "/playlog", limits: .init(maxBytes: maxBytes, keepSeconds: keepDays * 86_400), logger: logger))
    }

    static func entry(_ n: Int, start: Double, item: String = "menu", output: String = "HDMI-A-1", end: Double? = nil) -> PlayEntry {
        PlayEntry(id: "t-\(n)", output: output, playlist: "day", item: item, start: start, end: end, completed: end.map { _ in true }, hash: "h\(n)")
    }

    static func everything(_ store: PlayLogStore) throws -> PlayLogStore.Answer {
        try store.read(PlayLogQuery(limit: PlayLogQuery.maximumLimit))
    }

    @Test func recordedItemsAreReadBackByRangeOutputAndItem() throws {
        let (directory, store) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = PlayLog(store: store, loop: nil, workers: nil, logger: Logger(label: "test"))
        var ended: [PlayEntry] = []
        log.onEnded = { ended.append($0) }
        let t0 = 1_764_763_200.0
        let a = log.began(output: "HDMI-A-1", playlist: "lunch", item: "menu", start: t0)
        log.firstFrame(a, hash: "aa11")
        log.ended(a, end: t0 + 20, completed: true)
        let b = log.began(output: "HDMI-A-1", playlist: "lunch", item: "promo", start: t0 + 20)
        log.ended(b, end: t0 + 23, completed: false)
        let c = log.began(output: "HDMI-A-2", playlist: "lunch", item: "menu", start: t0 + 20)
        log.firstFrame(c, hash: "cc33")

        let all = try Self.everything(store)
        #expect(all.entries.map(\.item) == ["menu", "menu", "promo"] || all.entries.map(\.item) == ["menu", "promo", "menu"])
        let first = all.entries[0]
        #expect(
            first == PlayEntry(id: "\(log.run)-1", output: "HDMI-A-1", playlist: "lunch", item: "menu", start: t0, end: t0 + 20, completed: true, hash: "aa11"))
        let playing = try #require(all.entries.first { $0.output == "HDMI-A-2" })
        #expect(playing.end == nil && playing.completed == nil && playing.hash == "cc33")
        #expect(all.skipped == 0 && !all.more)
        #expect(ended.map(\.item) == ["menu", "promo"] && ended[1].completed == false)
        #expect(log.figures.started == 3 && log.figures.completed == 1 && log.figures.cutShort == 1)

        #expect(try store.read(PlayLogQuery(from: t0 + 10, to: t0 + 100)).entries.count == 2)
        #expect(try store.read(PlayLogQuery(from: t0, to: t0 + 20)).entries.map(\.item) == ["menu"])
        #expect(try store.read(PlayLogQuery(item: "promo")).entries.map(\.completed) == [false])
        #expect(try store.read(PlayLogQuery(output: "HDMI-A-2")).entries.map(\.hash) == ["cc33"])
        #expect(try store.read(PlayLogQuery(output: "HDMI-A-1", item: "menu")).entries.count == 1)
        let quoted = log.began(output: "HDMI-A-1", playlist: "lunch", item: #"Café "Spécial" / 2\n"#, start: t0 + 40)
        log.ended(quoted, end: t0 + 50, completed: true)
        #expect(try store.read(PlayLogQuery(item: #"Café "Spécial" / 2\n"#)).entries.map(\.start) == [t0 + 40])
        #expect(try store.read(PlayLogQuery(item: "Café")).entries.isEmpty)
        let limited = try store.read(PlayLogQuery(limit: 2))
        #expect(limited.entries.count == 2 && limited.more)
    }

    @Test func eachLineIsOneJSONObjectAndLinesOfAnItemMergeInAnyOrder() throws {
        let (directory, store) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var started = Self.entry(1, start: 100)
        started.hash = nil
        try store.append([Self.entry(1, start: 100, end: 110)])
        try store.append([started])
        let text = try String(contentsOfFile: directory + "/playlog/playlog-000001.jsonl", encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2 && text.hasSuffix("\n"))
        for line in lines { #expect(PlayEntry(json: try JSON(parsing: String(line))) != nil) }
        #expect(try Self.everything(store).entries == [Self.entry(1, start: 100, end: 110)])
    }

    /// A limit cuts where reading everything would: entries sharing a start, lines
    /// written out of order, an item's lines far apart.
    @Test func aLimitGivesTheFirstEntriesOfTheWholeLog() throws {
        let (directory, store) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let entries = (0..<40).map { Self.entry($0, start: Double(100 - $0 / 3), output: $0 % 2 == 0 ? "A" : "B", end: Double(200 + $0)) }
        var started = entries.map { entry -> PlayEntry in
            var begun = entry
            (begun.end, begun.completed, begun.hash) = (nil, nil, nil)
            return begun
        }
        started.shuffle()
        try store.append(started)
        try store.append(entries.reversed())
        let all = try Self.everything(store).entries
        #expect(all.count == 40 && all.allSatisfy { $0.end != nil && $0.hash != nil })
        for limit in [1, 2, 3, 4, 5, 7, 39, 40] {
            let answer = try store.read(PlayLogQuery(limit: limit))
            #expect(answer.entries == Array(all.prefix(limit)) && answer.more == (limit < 40), "limit \(limit)")
            let onB = try store.read(PlayLogQuery(from: 90, output: "B", limit: limit))
            let expected = all.filter { $0.output == "B" && $0.start >= 90 }
            #expect(onB.entries == Array(expected.prefix(limit)) && onB.more == (limit < expected.count), "B, limit \(limit)")
        }
    }

    @Test func theFilesStayWithinTheirSize() throws {
        let (directory, store) = try Self.store(maxBytes: 256 << 10)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for batch in 0..<20 {
            try store.append((0..<200).map { Self.entry(batch * 200 + $0, start: Double(batch * 200 + $0), end: Double(batch * 200 + $0) + 1) })
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/playlog").sorted()
        let sizes = try files.map { try FileManager.default.attributesOfItem(atPath: directory + "/playlog/" + $0)[.size] as! Int }
        let total = sizes.reduce(0, +)
        #expect(files.count >= 3 && files.allSatisfy { $0.hasPrefix("playlog-") && $0.hasSuffix(".jsonl") })
        #expect(files.first != "playlog-000001.jsonl", "the oldest files were removed")
        #expect(total <= (256 << 10) + store.limits.segmentBytes && total == PlayLogStore.bytes(in: directory + "/playlog"))
        let kept = try Self.everything(store).entries
        #expect(kept.last?.id == "t-3999" && kept.count < 3000 && kept.count > 1500, "\(kept.count)")
    }

    @Test func theDirectoriesAreMadeAtTheFirstWriteOnly() throws {
        let (directory, _) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = PlayLogStore(directory: directory + "/state/playlog", limits: .init(maxBytes: 1 << 20, keepSeconds: 86_400), logger: Logger(label: "test"))
        #expect(try store.read(PlayLogQuery()).entries.isEmpty && !FileManager.default.fileExists(atPath: directory + "/state"))
        try store.append([Self.entry(1, start: 1)])
        for path in ["/state", "/state/playlog"] {
            let mode = try FileManager.default.attributesOfItem(atPath: directory + path)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(path)")
        }
        #expect(try store.read(PlayLogQuery()).entries.map(\.id) == ["t-1"])
    }

    @Test func filesOlderThanKeepDaysAreRemoved() throws {
        let (directory, store) = try Self.store(keepDays: 90)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try store.append([Self.entry(1, start: 100, end: 101)])
        // An older file beside it: the first segment's last write 100 days ago.
        let old = directory + "/playlog/playlog-000001.jsonl"
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-100 * 86_400)], ofItemAtPath: old)
        let later = PlayLogStore(directory: directory + "/playlog", limits: store.limits, logger: Logger(label: "test"))
        try later.append([Self.entry(2, start: 200, end: 201)])
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/playlog") == ["playlog-000002.jsonl"])
        #expect(try Self.everything(later).entries.map(\.id) == ["t-2"])
    }

    @Test func aLineCutShortByACrashIsSkippedWithAWarningAndWritingGoesOn() throws {
        let recorder = LogRecorder()
        let (directory, store) = try Self.store(logger: recorder.logger)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try store.append([Self.entry(1, start: 100, end: 110), Self.entry(2, start: 110)])
        let file = directory + "/playlog/playlog-000001.jsonl"
        let handle = try #require(FileHandle(forWritingAtPath: file))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"completed":null,"end":null,"hash":null,"id":"t-3","item":"me"#.utf8))
        handle.closeFile()

        let reader = PlayLogStore(directory: directory + "/playlog", limits: store.limits, logger: recorder.logger)
        let answer = try Self.everything(reader)
        #expect(answer.entries.map(\.id) == ["t-1", "t-2"] && answer.skipped == 1)
        #expect(recorder.messages(atLeast: .warning).contains { $0.contains("playlog-000001.jsonl") && $0.contains("line 3") })

        try reader.append([Self.entry(2, start: 110, end: 120), Self.entry(4, start: 120)])
        #expect(recorder.messages(atLeast: .warning).contains { $0.contains("cut short") && $0.contains("ended here") })
        let after = try Self.everything(reader)
        #expect(after.entries.map(\.id) == ["t-1", "t-2", "t-4"] && after.entries[1].end == 120 && after.skipped == 1)
    }
}
