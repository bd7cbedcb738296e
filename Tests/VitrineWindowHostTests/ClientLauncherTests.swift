import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol

/// Programs the daemon starts (`[[clients]]`, `client.start`) with the real `vitrined`:
/// restarts and their backoff, stops of whole process groups, the environment and the
/// descriptors a client gets, its output in the log, and the daemon's stop.
@Suite struct ClientLauncherTests {
    /// A daemon with `config` (and `[launcher] allow_commands` unless `commands` is false),
    /// and a fresh directory for its clients' files.
    final class Setup {
        let work: URL
        let daemon: DaemonProcess
        let client: SocketClient

        init(_ config: String = "", commands: Bool = true, environment: [String: String] = [:], arguments: [String] = []) throws {
            work = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-clients-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let path = work.appendingPathComponent("vitrine.toml").path
            let text = (commands ? "[launcher]\nallow_commands = true\n\n" : "") + config.replacingOccurrences(of: "$WORK", with: work.path)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            daemon = try DaemonProcess(environment: environment, arguments: ["--config", path] + arguments)
            client = try daemon.connect()
            let subscribed = try client.request(#"{"cmd": "subscribe", "events": ["client.*"]}"#)
            try #require(subscribed["ok"] == .bool(true))
        }

        deinit { try? FileManager.default.removeItem(at: work) }

        func path(_ name: String) -> String { work.appendingPathComponent(name).path }

        /// Events read while waiting for replies, not yet taken.
        private var pending: [JSON] = []

        /// `request` with `fields`, JSON object members without braces.
        func request(_ cmd: String, _ fields: String = "") throws -> JSON {
            try client.request("{\"cmd\": \"\(cmd)\"" + (fields.isEmpty ? "" : ", " + fields) + "}")
        }

        /// `client.start` with `fields`; the reply.
        func start(_ fields: String) throws -> JSON { try request("client.start", fields) }

        /// `client.stop` of `name`; the reply.
        func stop(_ name: String) throws -> JSON { try request("client.stop", #""name": "\#(name)""#) }

        /// The next `client.*` event (those read with replies first), or nil after `timeout` seconds.
        func event(timeout: Double = 10) throws -> JSON? {
            pending += client.takeEvents()
            if !pending.isEmpty { return pending.removeFirst() }
            guard let line = client.readLine(timeout: timeout) else { return nil }
            return try JSON(parsing: Data(line.utf8))
        }

        /// The entry of `client.list` for `name`.
        func listed(_ name: String) throws -> JSON? {
            try request("client.list")["result"]?["clients"]?.array?.first { $0["name"] == .string(name) }
        }
    }

    /// The ids of the processes in process group `group`, from /proc.
    static func processes(inGroup group: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            // state, ppid, pgrp; a zombie waiting for its parent counts as gone.
            return fields.count > 2 && fields[0] != "Z" && Int32(fields[2]) == group
        }
    }

    /// Waits at most `timeout` seconds for `condition`.
    static func eventually(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(20_000)
        }
        return true
    }

    @Test func aFailingClientRestartsWithBackoffUntilTheCapThenGivesUp() throws {
        let setup = try Setup()
        let starts = setup.path("starts")
        let reply = try setup.start(
            #""name": "flaky", "command": ["sh", "-c", "echo run >> \#(starts); exit 3"], "restart": "on-failure", "restartMaxSeconds": 2, "restartsPerMinute": 3"#
        )
        try #require(reply["ok"] == .bool(true), "\(reply)")
        var startedAt: [Date] = []
        var waits: [Double] = []
        var exits: [JSON] = []
        var failed: JSON?
        while failed == nil, let event = try setup.event() {
            switch event["event"]?.string {
            case "client.started":
                startedAt.append(Date())
                #expect(event["restarts"] == .number(Double(startedAt.count - 1)), "\(event)")
            case "client.exited":
                exits.append(event)
                if let wait = event["restartIn"]?.number { waits.append(wait) }
            case "client.failed": failed = event
            default: Issue.record("unexpected \(event)")
            }
        }
        // 1 s, then doubled to the cap of 2 s; after 3 restarts within a minute the 4th exit gives up.
        #expect(waits == [1, 2, 2])
        #expect(startedAt.count == 4)
        #expect(exits.count == 4 && exits.allSatisfy { $0["exitCode"] == .number(3) && $0["signal"] == .null }, "\(exits)")
        #expect(exits.last?["state"] == .string("failed"))
        #expect(failed?["name"] == .string("flaky") && failed?["restarts"] == .number(3), "\(String(describing: failed))")
        #expect(failed?["reason"]?.string?.contains("restarts_per_minute") == true)
        for (i, wait) in waits.enumerated() {
            let gap = startedAt[i + 1].timeIntervalSince(startedAt[i])
            // At least the wait; on a loaded machine a second more at most.
            #expect(gap >= wait - 0.05 && gap < wait + 1, "restart \(i + 1) came \(gap) s after the start before it, the wait is \(wait) s")
        }
        #expect(try setup.event(timeout: 2.5) == nil, "a client given up on was started again")
        let listed = try #require(try setup.listed("flaky"))
        #expect(listed["state"] == .string("failed") && listed["restarts"] == .number(3) && listed["pid"] == .null)
        #expect(listed["lastExit"] == .object(["exitCode": .number(3), "signal": .null]))
        #expect(try String(contentsOfFile: starts, encoding: .utf8) == String(repeating: "run\n", count: 4))
    }

    @Test func theRestartPolicyDecidesWhatAnExitDoes() throws {
        let setup = try Setup()
        let cases: [(restart: String, status: Int, state: String)] = [
            ("never", 3, "exited"), ("on-failure", 0, "exited"), ("on-failure", 4, "restarting"), ("always", 0, "restarting"),
        ]
        for (i, c) in cases.enumerated() {
            let name = "p\(i)"
            let reply = try setup.start(#""name": "\#(name)", "command": ["sh", "-c", "exit \#(c.status)"], "restart": "\#(c.restart)""#)
            try #require(reply["ok"] == .bool(true), "\(reply)")
            #expect(reply["result"]?["state"] == .string("running") && reply["result"]?["pid"]?.number != nil)
            #expect(try setup.event()?["event"] == .string("client.started"))
            let exited = try #require(try setup.event())
            #expect(exited["event"] == .string("client.exited") && exited["name"] == .string(name))
            #expect(exited["exitCode"] == .number(Double(c.status)), "\(exited)")
            #expect(exited["state"] == .string(c.state), "\(c.restart) with status \(c.status): \(exited)")
            #expect((exited["restartIn"] != nil) == (c.state == "restarting"))
            let stopped = try setup.stop(name)
            #expect(stopped["result"]?["state"] == .string(c.state == "restarting" ? "stopped" : c.state), "\(stopped)")
        }
        #expect(try setup.event(timeout: 1.5) == nil, "a client stopped while it waited to restart was started again")
    }

    @Test func stopEndsTheWholeProcessGroup() throws {
        let setup = try Setup()
        let reply = try setup.start(#""name": "pair", "command": ["sh", "-c", "sleep 100 & sleep 100"]"#)
        let pid = Int32(try #require(reply["result"]?["pid"]?.number))
        #expect(Self.eventually { Self.processes(inGroup: pid).count >= 3 }, "sh and its two sleeps: \(Self.processes(inGroup: pid))")
        let started = Date()
        let stopped = try setup.stop("pair")
        #expect(stopped["result"]?["state"] == .string("stopped"), "\(stopped)")
        #expect(stopped["result"]?["lastExit"] == .object(["exitCode": .null, "signal": .string("SIGTERM")]))
        #expect(Date().timeIntervalSince(started) < 3, "SIGTERM ends sleep at once; the reply waited for the grace")
        #expect(Self.eventually(timeout: 2) { Self.processes(inGroup: pid).isEmpty }, "left in the group: \(Self.processes(inGroup: pid))")
        var events: [JSON] = []
        while let event = try setup.event(timeout: 1) { events.append(event) }
        let exited = try #require(events.first { $0["event"] == .string("client.exited") })
        #expect(exited["signal"] == .string("SIGTERM") && exited["state"] == .string("stopped") && exited["pid"] == .number(Double(pid)))
    }

    @Test func aClientThatIgnoresSIGTERMIsKilledAfterItsGrace() throws {
        let setup = try Setup()
        let reply = try setup.start(#""name": "stubborn", "command": ["sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"], "stopSeconds": 0.5"#)
        let pid = Int32(try #require(reply["result"]?["pid"]?.number))
        usleep(200_000)
        let started = Date()
        let stopped = try setup.stop("stubborn")
        let took = Date().timeIntervalSince(started)
        #expect(stopped["result"]?["lastExit"]?["signal"] == .string("SIGKILL"), "\(stopped)")
        #expect(took >= 0.45 && took < 3, "the stop took \(took) s with a grace of 0.5 s")
        #expect(Self.eventually(timeout: 2) { Self.processes(inGroup: pid).isEmpty })
    }

    @Test func aClientGetsTheDaemonsEnvironmentItsOwnAndTheCompositorsSocket() throws {
        let setup = try Setup(
            """
            [compositor]
            enabled = true
            socket = "wayland-test"

            [[clients]]
            name = "env"
            command = ["sh", "-c", "env > env.txt; pwd > pwd.txt"]
            env = { GREETING = "hello world", LANG = "C.UTF-8" }
            directory = "$WORK"
            restart = "never"

            """, environment: ["VITRINE_TEST_INHERITED": "yes", "LANG": "de_DE.UTF-8", "INVOCATION_ID": "0123abcd"])
        #expect(Self.eventually { (try? setup.listed("env"))?["state"] == .string("exited") })
        let text = try String(contentsOfFile: setup.path("env.txt"), encoding: .utf8)
        var variables: [String: String] = [:]
        for line in text.split(separator: "\n") {
            if let equals = line.firstIndex(of: "=") { variables[String(line[..<equals])] = String(line[line.index(after: equals)...]) }
        }
        let runtime = URL(fileURLWithPath: setup.daemon.socketPath).deletingLastPathComponent().path
        #expect(variables["GREETING"] == "hello world")
        #expect(variables["LANG"] == "C.UTF-8", "the entry's env replaces the daemon's")
        #expect(variables["VITRINE_TEST_INHERITED"] == "yes", "the daemon's environment is inherited")
        #expect(variables["INVOCATION_ID"] == nil, "systemd's variables for the daemon are not passed on")
        #expect(variables["WAYLAND_DISPLAY"] == runtime + "/wayland-test")
        #expect(variables["XDG_RUNTIME_DIR"] == runtime)
        #expect(try String(contentsOfFile: setup.path("pwd.txt"), encoding: .utf8) == setup.work.path + "\n")
    }

    /// Clients configured without the compositor (a forgotten `enabled = true`) still
    /// start, and the log says why a Wayland program among them finds no compositor.
    @Test func clientsWithoutTheCompositorAreWarnedOf() throws {
        let setup = try Setup(
            """
            [[clients]]
            name = "env"
            command = ["true"]
            directory = "$WORK"
            restart = "never"

            """, arguments: ["--log-level", "warning"])
        #expect(Self.eventually { (try? setup.listed("env"))?["state"] == .string("exited") })
        #expect(setup.daemon.standardError.contains("[[clients]] are configured but [compositor] is off"), "\(setup.daemon.standardError)")
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/weston-simple-shm"), "weston-simple-shm is not installed: apt-get install weston"))
    func aLaunchedClientIsAWaylandClientOfTheDaemon() throws {
        let setup = try Setup(
            """
            [compositor]
            enabled = true
            socket = "wl"

            [[clients]]
            name = "shm"
            command = ["weston-simple-shm"]
            start = false

            """)
        #expect(try setup.request("subscribe", #""events": ["surface.*"]"#)["ok"] == .bool(true))
        let pid = try #require(try setup.start(#""name": "shm""#)["result"]?["pid"]?.number)
        var mapped: JSON?
        while mapped == nil, let event = try setup.event() {
            if event["event"] == .string("surface.mapped") { mapped = event }
        }
        #expect(mapped?["pid"] == .number(pid), "the window of the client the daemon started: \(String(describing: mapped))")
        #expect(mapped?["title"] == .string("simple-shm"))
        #expect(try setup.stop("shm")["result"]?["state"] == .string("stopped"))
        var unmapped = false
        while !unmapped, let event = try setup.event(timeout: 5) { unmapped = event["event"] == .string("surface.unmapped") }
        #expect(unmapped, "the stopped client's window is still mapped")
    }

    @Test func aClientInheritsNoDescriptorOfTheDaemon() throws {
        let setup = try Setup()
        let reply = try setup.start(#""name": "sleeper", "command": ["sleep", "100"]"#)
        let pid = try #require(reply["result"]?["pid"]?.number.map(Int32.init))
        let ours = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(setup.daemon.pid)/fd").compactMap(Int.init).filter { $0 > 2 }
        #expect(ours.count >= 6, "the daemon holds its socket, a connection, epoll, eventfd, timerfd, signalfd, pidfd, a pipe: \(ours)")
        // Right after exec the dynamic loader has a library open as fd 3 for a moment; an
        // inherited descriptor stays for good, as sleep closes none.
        var theirs: [Int] = []
        for _ in 0..<100 {
            theirs = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap(Int.init).sorted()
            if theirs == [0, 1, 2] { break }
            usleep(20_000)
        }
        #expect(theirs == [0, 1, 2], "the client inherited \(theirs)")
        let targets = try (0...2).map { try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
        #expect(targets[0] == "/dev/null" && targets[1].hasPrefix("pipe:") && targets[1] == targets[2], "\(targets)")
    }

    @Test func stoppingTheDaemonEndsItsClients() throws {
        let setup = try Setup(
            """
            [[clients]]
            name = "pair"
            command = ["sh", "-c", "sleep 100 & sleep 100"]

            [[clients]]
            name = "stubborn"
            command = ["sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"]
            stop_seconds = 0.5

            """)
        var groups: [Int32] = []
        for name in ["pair", "stubborn"] {
            let pid = try #require(try setup.listed(name)?["pid"]?.number.map(Int32.init), "\(name) was not started with the daemon")
            #expect(Self.eventually { Self.processes(inGroup: pid).count >= 2 })
            groups.append(pid)
        }
        #expect(setup.daemon.stop() == 0)
        for group in groups {
            #expect(Self.processes(inGroup: group).isEmpty, "left running after the daemon stopped: \(Self.processes(inGroup: group))")
        }
    }

    @Test func clientOutputGoesToTheLogWithinBounds() throws {
        let setup = try Setup(arguments: ["--log-level", "info"])
        let script = "echo first line; head -c 10000 /dev/zero | tr '\\\\0' x; echo; seq 1 100000; printf 'no newline at the end'"
        let reply = try setup.start(#""name": "chatty", "restart": "never", "command": ["sh", "-c", "\#(script)"]"#)
        try #require(reply["ok"] == .bool(true), "\(reply)")
        #expect(Self.eventually { (try? setup.listed("chatty"))?["state"] == .string("exited") })
        let log = setup.daemon.standardError.split(separator: "\n")
        let lines = log.filter { $0.contains("[chatty] ") }
        #expect(lines.contains { $0.hasSuffix("[chatty] first line") })
        // A line of 10 000 bytes is logged in pieces of 4096.
        #expect(lines.filter { $0.hasSuffix("[chatty] " + String(repeating: "x", count: 4096)) }.count == 2)
        #expect(lines.contains { $0.hasSuffix("[chatty] " + String(repeating: "x", count: 10_000 - 2 * 4096)) })
        // 100 000 lines at once: a burst of 500 is logged, the rest counted.
        #expect(lines.contains { $0.hasSuffix("[chatty] 1") })
        #expect(lines.count < 1000, "\(lines.count) lines of output logged")
        #expect(log.contains { $0.contains("[chatty] …") && $0.contains("lines left out") }, "no count of the lines left out")
    }

    @Test func badRequestsAreRefusedAndChangeNothing() throws {
        let refusing = try Setup("", commands: false)
        let notAllowed = try refusing.start(#""name": "x", "command": ["true"]"#)
        #expect(notAllowed["error"]?["code"] == .string("not_allowed") && notAllowed["error"]?["message"]?.string?.contains("allow_commands") == true)

        let setup = try Setup(
            """
            [[clients]]
            name = "idle"
            command = ["sleep", "100"]
            start = false

            """)
        let script = setup.path("script.sh")
        try "#!/bin/sh\nexit 0\n".write(toFile: script, atomically: true, encoding: .utf8)
        let before = try setup.request("client.list")["result"]
        let cases: [(fields: String, code: String, says: String)] = [
            (#""name": "nobody""#, "unknown_client", "'idle'"),
            (#""name": "x", "command": []"#, "invalid_value", "empty"),
            (#""name": "x", "command": [""]"#, "invalid_value", "program"),
            (#""name": "x", "command": "sleep 1""#, "wrong_type", "command"),
            (#""name": "bad name", "command": ["true"]"#, "invalid_value", "client name"),
            (#""name": "x", "command": ["vitrine-no-such-program"]"#, "start_failed", "no executable 'vitrine-no-such-program' in PATH"),
            (#""name": "x", "command": ["\#(script)"]"#, "start_failed", "not executable"),
            (#""name": "x", "command": ["/"]"#, "start_failed", "not a regular file"),
            (#""name": "x", "command": ["true"], "directory": "/nonexistent-dir""#, "start_failed", "/nonexistent-dir"),
            (#""name": "x", "command": ["true"], "directory": "relative""#, "invalid_value", "absolute"),
            (#""name": "x", "command": ["true"], "env": {"1BAD": "x"}"#, "invalid_value", "variable name"),
            (#""name": "x", "command": ["true"], "restart": "sometimes""#, "invalid_value", "on-failure"),
            (#""name": "x", "command": ["true"], "restartsPerMinute": 0"#, "invalid_value", "1…1000"),
            (#""name": "idle", "command": ["true"]"#, "invalid_value", "[[clients]] entry"),
            (#""name": "idle", "restart": "always""#, "invalid_value", "goes with \"command\""),
        ]
        for (fields, code, says) in cases {
            let reply = try setup.start(fields)
            #expect(reply["error"]?["code"] == .string(code), "\(fields): \(reply)")
            #expect(reply["error"]?["message"]?.string?.contains(says) == true, "\(fields): \(reply)")
        }
        #expect(try setup.request("client.list")["result"] == before, "a refused client.start changed the list")
        let running = try setup.start(#""name": "idle""#)
        #expect(running["result"]?["state"] == .string("running"))
        let again = try setup.start(#""name": "idle""#)
        #expect(again["error"]?["code"] == .string("invalid_value") && again["error"]?["message"]?.string?.contains("client.stop it first") == true)
        #expect(try setup.stop("nobody")["error"]?["code"] == .string("unknown_client"))
        let later = try setup.request("client.stop", #""name": "idle", "at": 4000000000"#)
        #expect(later["error"]?["code"] == .string("invalid_value") && later["error"]?["message"]?.string?.contains("takes no \"at\"") == true)
        #expect(try setup.stop("idle")["result"]?["state"] == .string("stopped"))
        #expect(try setup.request("client.list")["result"]?["clients"]?.array?.count == 1)
    }

    @Test func aConfiguredProgramThatCannotStartIsReportedAndTheDaemonRuns() throws {
        let setup = try Setup(
            """
            [[clients]]
            name = "missing"
            command = ["/nonexistent/vitrine-kiosk-browser"]

            """)
        let listed = try #require(try setup.listed("missing"))
        #expect(listed["state"] == .string("failed"))
        #expect(listed["reason"]?.string?.contains("/nonexistent/vitrine-kiosk-browser does not exist") == true, "\(listed)")
        #expect(try setup.request("ping")["ok"] == .bool(true))
    }
}
