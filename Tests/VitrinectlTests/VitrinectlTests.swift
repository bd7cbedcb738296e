import Foundation
import Testing
import VitrineProtocol

/// End to end: the real `vitrinectl` against the real `vitrined`, checking what a user
/// sees: standard output, standard error and the exit status.
@Suite struct VitrinectlTests {
    @Test func addSetGetRoundTrip() throws {
        let daemon = try Daemon()
        let add = try daemon.ctl("add", "box", "bounds", "[0,0,100,100]", "position", "[100,200]", "backgroundColor", "red")
        #expect(add.status == 0 && add.stdout.isEmpty && add.stderr.isEmpty, "\(add)")
        try daemon.ctl("add", "title", "--kind", "text", "--parent", "box", "string", "Hello world", "position", "[50,20]")
        let set = try daemon.ctl("set", "box", "backgroundColor", "#0000ff", "opacity", "0.5", "--no-actions")
        #expect(set.status == 0 && set.stdout.isEmpty, "\(set)")

        let get = try daemon.ctl("get", "box", "position", "backgroundColor", "opacity")
        #expect(get.status == 0)
        #expect(get.lines == ["backgroundColor = \"#0000ff\"", "opacity = 0.5", "position = [100,200]"])
        #expect(try daemon.ctl("get", "title", "string").lines == ["string = \"Hello world\""])

        let json = try daemon.ctl("get", "box", "position", "--json")
        let reply = try JSON(parsing: Data(json.stdout.utf8))
        #expect(reply["ok"] == .bool(true))
        #expect(reply["result"]?["properties"]?["position"] == .array([.number(100), .number(200)]))

        try daemon.ctl("add", "under", "--below", "box")
        #expect(try daemon.ctl("tree").lines == ["root (layer)", "  under (layer)", "  box (layer)", "    title (text)"])
        #expect(try daemon.ctl("move", "under", "box", "--index", "0").status == 0)
        #expect(try daemon.ctl("remove", "title").status == 0)
        #expect(try daemon.ctl("tree", "box").lines == ["box (layer)", "  under (layer)"])
    }

    @Test func setWithDurationAnimates() throws {
        let daemon = try Daemon()
        try daemon.ctl("add", "box", "bounds", "[0,0,100,100]", "position", "[100,100]", "backgroundColor", "red")
        let set = try daemon.ctl("set", "box", "position.x", "500", "backgroundColor", "blue", "--duration", "2", "--timing", "linear")
        #expect(set.status == 0 && set.stdout.isEmpty, "\(set)")
        #expect(try daemon.ctl("clock", "advance", "1").status == 0)
        let midway = try daemon.ctl("get", "box", "position.x", "backgroundColor", "--presentation")
        #expect(midway.lines == ["backgroundColor = \"#800080\"", "position.x = 300"], "\(midway)")
        #expect(try daemon.ctl("get", "box", "position.x").lines == ["position.x = 500"])
        #expect(try daemon.ctl("time").lines == ["1"])
    }

    @Test func clockSetStepsTheWallClock() throws {
        let daemon = try Daemon()
        #expect(try daemon.ctl("clock", "set", "5", "--wall", "1796641140").status == 0)
        #expect(try daemon.ctl("--json", "hello").stdout.contains(#""wallOffset":1796641135"#))
        let refused = try daemon.ctl("clock", "set", "6", "--wall=-3")
        #expect(refused.status != 0 && refused.stderr.contains("\"wall\""), "\(refused)")
    }

    /// The example of the issue: `animate box position.y --to 500 --duration 2 --timing easeInEaseOut`.
    @Test func animateAddsAnExplicitAnimation() throws {
        let daemon = try Daemon()
        try daemon.ctl("add", "box", "bounds", "[0,0,100,100]", "position", "[100,100]")
        let animate = try daemon.ctl("animate", "box", "position.y", "--to", "500", "--duration", "2", "--timing", "easeInEaseOut", "--key", "drop")
        #expect(animate.status == 0 && animate.stdout.isEmpty, "\(animate)")
        let list = try daemon.ctl("animations", "box")
        #expect(list.lines.count == 2)
        #expect(list.lines.last?.split(separator: " ", omittingEmptySubsequences: true).prefix(4) == ["drop", "position.y", "basic", "2"])
        try daemon.ctl("clock", "advance", "1")
        // easeInEaseOut is symmetric: half the time, half the way.
        #expect(try daemon.ctl("get", "box", "position.y", "--presentation").lines == ["position.y = 300"])
        // The model value stays: an explicit animation shows, it does not set.
        #expect(try daemon.ctl("get", "box", "position.y").lines == ["position.y = 100"])
        try daemon.ctl("clock", "advance", "1.5")
        #expect(try daemon.ctl("animations", "box").stdout.isEmpty)

        try daemon.ctl("animate", "box", "opacity", "--from", "1", "--to", "0", "--duration", "1", "--repeat", "infinity", "--key", "blink")
        #expect(try daemon.ctl("stop", "box", "blink").status == 0)
        #expect(try daemon.ctl("animations", "box").stdout.isEmpty)
    }

    @Test func sendReadsRequestsFromStandardInput() throws {
        let daemon = try Daemon()
        let input = """
            {"cmd": "layer.add", "layer": "a"}

            {"id": "mine", "cmd": "layer.get", "layer": "a", "keys": ["opacity"]}
            {"cmd": "layer.get", "layer": "nope"}
            {"cmd": "ping"}
            """
        let send = try daemon.ctl("send", stdin: input)
        let replies = try send.lines.map { try JSON(parsing: Data($0.utf8)) }
        #expect(replies.map { $0["id"] } == [.number(1), .string("mine"), .number(2), .number(3)], "\(send)")
        #expect(replies.map { $0["ok"] } == [.bool(true), .bool(true), .bool(false), .bool(true)])
        #expect(replies[1]["result"]?["properties"]?["opacity"] == .number(1))
        #expect(send.status == 1)
        #expect(send.stderr == "vitrinectl: unknown_layer: there is no layer 'nope'; layer.tree lists the layers\n")

        // From arguments, with the events that come before a reply.
        let args = try daemon.ctl(
            "send", #"{"cmd": "layer.set", "layer": "a", "properties": {"opacity": 0}, "actions": false}"#, #"{"cmd": "ping"}"#)
        #expect(args.status == 0)
        #expect(args.lines.count == 3, "\(args)")
        #expect(args.lines.dropFirst().first?.contains(#""event":"transaction.completed""#) == true)
    }

    /// `number` prints the formatted text; with `--wait` it returns when the roll has
    /// settled, or when a newer value took over, and says which.
    @Test func numberRollsAndWaits() throws {
        let daemon = try Daemon()
        try daemon.ctl("add", "count", "--kind", "rolling-number", "bounds", "[0,0,600,120]", "value", "1299")
        let set = try daemon.ctl("number", "count", "1300", "--direction", "up", "--speed", "1")
        #expect(set.status == 0 && set.lines == ["1,300"] && set.stderr.isEmpty, "\(set)")
        #expect(try daemon.ctl("get", "count", "value").lines == ["value = 1300"])

        let superseded = try daemon.start("number", "count", "1301", "--wait")
        var rounds = 0
        // Until the first has been applied, a second could come before it: keep asking.
        while superseded.isRunning, rounds < 100 {
            try daemon.ctl("number", "count", "1302")
            rounds += 1
        }
        let first = try superseded.wait(timeout: 10)
        #expect(first.status == 0 && first.lines == ["1,301", "superseded by a newer value"], "\(first)")

        let settles = try daemon.start("number", "count", "1400", "--wait", "--json")
        rounds = 0
        while settles.isRunning, rounds < 100 {
            try daemon.ctl("clock", "advance", "2")
            rounds += 1
        }
        let settled = try settles.wait(timeout: 10)
        let lines = try settled.lines.map { try JSON(parsing: Data($0.utf8)) }
        #expect(settled.status == 0 && lines.count == 2, "\(settled)")
        #expect(lines.first?["result"]?["text"] == .string("1,400"))
        #expect(lines.last?["event"] == .string("number.completed") && lines.last?["finished"] == .bool(true))

        let refused = try daemon.ctl("number", "count", "5", "--animation-type", "sometimes")
        #expect(refused.status == 1 && refused.stderr.hasPrefix("vitrinectl: invalid_value: animationType is one of"), "\(refused)")
    }

    /// `--timeout` bounds every wait in real seconds, on a manual clock that never moves
    /// too: `--wait` ends with status 4 and says so; `watch` stops (status 4 if --count
    /// events have not come).
    @Test func waitsEndAfterTimeoutOnAManualClock() throws {
        let daemon = try Daemon()
        try daemon.ctl("add", "n", "--kind", "rolling-number", "bounds", "[0,0,600,120]", "value", "1")
        try daemon.ctl("add", "box")
        func timed(_ arguments: String...) throws -> (Ctl.Result, Double) {
            let start = Date()
            let result = try daemon.ctl(arguments)
            return (result, Date().timeIntervalSince(start))
        }
        for arguments in [
            ["number", "n", "10", "--wait", "--timeout", "1"],
            ["set", "box", "opacity", "0", "--duration", "5", "--wait", "--timeout", "1"],
            ["animate", "box", "position.x", "--to", "500", "--duration", "5", "--wait", "--timeout", "1"],
        ] {
            let start = Date()
            let result = try daemon.ctl(arguments)
            let elapsed = Date().timeIntervalSince(start)
            #expect(result.status == 4, "\(arguments): \(result)")
            #expect(elapsed >= 0.95 && elapsed < 5, "\(arguments) took \(elapsed) s")
            #expect(
                result.stderr.hasPrefix("vitrinectl: transaction ")
                    && result.stderr.hasSuffix(" did not complete within 1 s (see --timeout); its animations go on\n"), "\(result.stderr)")
        }
        // What number printed before it waited stays printed.
        #expect(try daemon.ctl("number", "n", "11", "--wait", "--timeout", "0.5").lines == ["11"])
        // Time moved: the same waits end as before.
        let rolls = try daemon.start("number", "n", "12", "--wait", "--timeout", "20")
        var rounds = 0
        while rolls.isRunning, rounds < 100 {
            try daemon.ctl("clock", "advance", "2")
            rounds += 1
        }
        #expect(try rolls.wait(timeout: 10).lines == ["12", "settled"])

        let (watch, watched) = try timed("watch", "--timeout", "1")
        #expect(watch.status == 0 && watch.stdout.isEmpty && watch.stderr.isEmpty, "\(watch)")
        #expect(watched >= 0.95 && watched < 5)
        let (counted, _) = try timed("watch", "animation.*", "--count", "1", "--timeout", "0.5")
        #expect(counted.status == 4 && counted.stderr == "vitrinectl: 0 of 1 events came within 0.5 s (see --timeout)\n", "\(counted)")
    }

    @Test func watchPrintsEvents() throws {
        let daemon = try Daemon()
        try daemon.ctl("add", "a")
        let watch = try daemon.start("watch", "animation.*", "--count", "2")
        // Until the watcher has subscribed, events pass it by: keep making them.
        var rounds = 0
        while watch.isRunning, rounds < 100 {
            try daemon.ctl("animate", "a", "opacity", "--from", "0", "--to", "1", "--duration", "1", "--key", "fade")
            try daemon.ctl("clock", "advance", "1")
            rounds += 1
        }
        let result = try watch.wait(timeout: 10)
        #expect(result.status == 0, "\(result)")
        let events = try result.lines.map { try JSON(parsing: Data($0.utf8)) }
        #expect(events.count == 2)
        for event in events {
            #expect(event["event"]?.string?.hasPrefix("animation.") == true)
            #expect(event["layer"] == .string("a") && event["key"] == .string("fade"))
        }
    }

    @Test func daemonErrorsExitWithStatusOne() throws {
        let daemon = try Daemon()
        let get = try daemon.ctl("get", "nope")
        #expect(get.status == 1)
        #expect(get.stdout.isEmpty)
        #expect(get.stderr == "vitrinectl: unknown_layer: there is no layer 'nope'; layer.tree lists the layers\n")
        try daemon.ctl("add", "box")
        let wrong = try daemon.ctl("set", "box", "position", "left")
        #expect(wrong.status == 1)
        #expect(wrong.stderr.hasPrefix("vitrinectl: wrong_type: 'box.position' takes a point"))
        #expect(try daemon.ctl("reload").stderr.hasPrefix("vitrinectl: invalid_config: "))
    }

    @Test func missingDaemonExitsWithStatusThree() throws {
        let directory = FileManager.default.temporaryDirectory
        let path = directory.appendingPathComponent("vitrinectl-test-absent-\(UUID().uuidString.prefix(8)).sock").path
        let result = try Ctl(["ping", "--socket", path], socket: nil, stdin: nil, in: directory).wait()
        #expect(result.status == 3)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(path))
        #expect(result.stderr.contains("systemctl status vitrine"))
        #expect(result.stderr.contains("--socket"))
    }

    @Test(arguments: [
        ["set", "box"],
        ["set", "box", "opacity"],
        ["set", "box", "opacity", "1", "--spring", "--timing", "linear"],
        ["set", "box", "opacity", "1", "--damping", "5"],
        ["set", "box", "opacity", "1", "--no-actions", "--duration", "1"],
        ["set", "box", "opacity", "1", "--timing", "wobbly"],
        ["add"],
        ["add", "box", "--above", "a", "--index", "0"],
        ["animate", "box", "opacity", "--to", "1"],
        ["animate", "box", "opacity", "--duration", "1", "--repeat", "often", "--to", "1"],
        ["screenshot"],
        ["frobnicate"],
        ["number", "count"],
        ["number", "count", "abc"],
        ["number", "count", "5", "6"],
        ["number", "count", "5", "--dirction", "up"],
        ["number", "count", "5", "--no-animation", "--animation-type", "allNumbers"],
        ["add", "n", "--kind", "rolling-number", "alignment=right"],
        ["add", "n", "rolling-number", "fontSize=80", "value=12"],
        ["set", "box", "opacity=0.5", "position", "[1,2]"],
    ])
    func badUsageExitsWithStatusTwo(_ arguments: [String]) throws {
        // Usage is checked before connecting: no daemon is needed.
        let directory = FileManager.default.temporaryDirectory
        let result = try Ctl(arguments, socket: "/nonexistent/vitrine.sock", stdin: nil, in: directory).wait()
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("Usage: vitrinectl"), "\(result.stderr)")
    }

    @Test func aProtocolCommandNameIsAnsweredWithTheRequestToSend() throws {
        let directory = FileManager.default.temporaryDirectory
        let result = try Ctl(
            ["layer.add", #"{"layer": "browser", "kind": "surface"}"#], socket: "/nonexistent/vitrine.sock", stdin: nil, in: directory
        ).wait()
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                #"'layer.add' is no subcommand but reads as a protocol command, which is sent as a request: vitrinectl send '{"cmd": "layer.add", "layer": "browser", "kind": "surface"}'"#
            ), "\(result.stderr)")
        let bare = try Ctl(["surface.list"], socket: "/nonexistent/vitrine.sock", stdin: nil, in: directory).wait()
        #expect(bare.status == 2 && bare.stderr.contains(#"vitrinectl send '{"cmd": "surface.list"}'"#), "\(bare.stderr)")
    }

    @Test func keyEqualsValueIsRefusedWithTheSpellingToUse() throws {
        let directory = FileManager.default.temporaryDirectory
        let result = try Ctl(
            ["add", "n", "--kind", "rolling-number", "fontSize=80", "value=12"], socket: "/nonexistent/vitrine.sock", stdin: nil, in: directory
        ).wait()
        #expect(result.status == 2)
        #expect(result.stderr.contains("not KEY=VALUE: write fontSize '80' instead of 'fontSize=80'"), "\(result.stderr)")
        // A value may hold '=': only keys are read as names.
        let daemon = try Daemon()
        let set = try daemon.ctl("add", "t", "--kind", "text", "string", "a=b")
        #expect(set.status == 0, "\(set)")
    }

    @Test func screenshotWritesAPNGOnTheClientSide() throws {
        let daemon = try Daemon()
        try daemon.ctl("add", "box", "bounds", "[0,0,100,100]", "position", "[640,400]", "backgroundColor", "tomato")
        let shot = try daemon.ctl("screenshot", "shots-here.png")
        #expect(shot.status == 0 && shot.stdout.isEmpty, "\(shot)")
        let png = try [UInt8](Data(contentsOf: daemon.directory.appendingPathComponent("shots-here.png")))
        #expect(png.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(String(decoding: png[12..<16], as: UTF8.self) == "IHDR")
        func bigEndian(_ offset: Int) -> Int { png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect((bigEndian(16), bigEndian(20)) == (1280, 800))

        let onDaemon = try daemon.ctl("screenshot", "--on-daemon", "daemon.png")
        #expect(onDaemon.status == 0)
        #expect(onDaemon.lines.count == 1 && onDaemon.lines[0].hasSuffix("/daemon.png"))
        #expect(FileManager.default.fileExists(atPath: onDaemon.lines[0]))
        let outside = try daemon.ctl("screenshot", "--on-daemon", "/etc/passwd.png")
        #expect(outside.status == 1 && outside.stderr.hasPrefix("vitrinectl: path_not_allowed: "))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScripts(_ shell: String) throws {
        let directory = FileManager.default.temporaryDirectory
        let result = try Ctl(["--generate-completion-script", shell], socket: nil, stdin: nil, in: directory).wait()
        #expect(result.status == 0)
        #expect(result.stdout.contains("vitrinectl") && result.stdout.contains("animate"))
    }
}
