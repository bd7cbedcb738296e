import Foundation
import Testing
import VitrineProtocol
@testable import VitrineConfig

@Suite struct ClientsConfigTests {
    @Test func clientsTablesAreRead() throws {
        let c = try parse(
            """
            [launcher]
            allow_commands = true

            [[clients]]
            name = "browser"
            command = ["chromium", "--kiosk", "http://localhost:8080"]

            [[clients]]
            name = "player"
            command = ["/usr/bin/mpv", "--loop", "/srv/loop.mp4"]
            env = { LANG = "C.UTF-8", MPV_HOME = "/etc/mpv" }
            directory = "/srv"
            restart = "always"
            restart_max_seconds = 10
            restarts_per_minute = 3
            stop_seconds = 0.5
            start = false
            """)
        #expect(c.launcher.allowCommands)
        #expect(c.clients.map(\.name) == ["browser", "player"])
        let browser = c.clients[0]
        #expect(browser.program == ClientProgram(command: ["chromium", "--kiosk", "http://localhost:8080"]) && browser.start)
        #expect(browser.program.restart == .onFailure && browser.program.restartMaxSeconds == 30 && browser.program.restartsPerMinute == 5)
        #expect(browser.program.stopSeconds == 5 && browser.program.directory.isEmpty && browser.program.environment.isEmpty)
        #expect(browser.program.restartUnresponsiveAfter == 0)
        let player = c.clients[1].program
        #expect(player.environment == ["LANG": "C.UTF-8", "MPV_HOME": "/etc/mpv"] && player.directory == "/srv")
        #expect(player.restart == .always && player.restartMaxSeconds == 10 && player.restartsPerMinute == 3 && player.stopSeconds == 0.5)
        #expect(!c.clients[1].start)
        #expect(try parse("").clients.isEmpty && !Configuration.default.launcher.allowCommands)
    }

    @Test func mistakesNameTheTableAndKey() throws {
        let cases: [(String, String, String)] = [
            ("[[clients]]\nname = \"a\"", "clients[0]", "needs a name and a command"),
            ("[[clients]]\ncommand = [\"true\"]", "clients[0]", "needs a name and a command"),
            ("[[clients]]\nname = \"a\"\ncommand = []", "clients[0].command", "the program not empty"),
            ("[[clients]]\nname = \"a\"\ncommand = [\"\"]", "clients[0].command", "the program not empty"),
            ("[[clients]]\nname = \"a\"\ncommand = \"sleep 1\"", "clients[0].command", "array of strings"),
            ("[[clients]]\nname = \"a\"\ncommand = [\"sleep\", 1]", "clients[0].command", "array of strings"),
            ("[[clients]]\nname = \"a b\"\ncommand = [\"true\"]", "clients[0].name", "letters, digits"),
            (
                "[[clients]]\nname = \"a\"\ncommand = [\"true\"]\n[[clients]]\nname = \"a\"\ncommand = [\"true\"]", "clients[1].name",
                "earlier [[clients]] table"
            ),
            ("[[clients]]\nname = \"a\"\ncommand = [\"true\"]\nenv = { \"1X\" = \"y\" }", "clients[0].env", "variable names"),
            ("[[clients]]\nname = \"a\"\ncommand = [\"true\"]\nenv = { X = 1 }", "clients[0].env", "string values"),
            ("[[clients]]\nname = \"a\"\ncommand = [\"true\"]\ndirectory = \"srv\"", "clients[0].directory", "absolute path"),
            ("[[clients]]\nname = \"a\"\ncommand = [\"true\"]\nrestart = \"sometimes\"", "clients[0].restart", "\"on-failure\""),
            ("[[clients]]\nname = \"a\"\ncommand = [\"true\"]\nrestart_max_seconds = 0", "clients[0].restart_max_seconds", "1…3600"),
            ("[[clients]]\nname = \"a\"\ncommand = [\"true\"]\nrestarts_per_minute = 0", "clients[0].restarts_per_minute", "1…1000"),
            ("[[clients]]\nname = \"a\"\ncommand = [\"true\"]\nstop_seconds = 0", "clients[0].stop_seconds", "0.1…300"),
            (
                "[[clients]]\nname = \"a\"\ncommand = [\"true\"]\nrestart_unresponsive_after = 3601", "clients[0].restart_unresponsive_after",
                "1…3600, or 0"
            ),
            ("[[clients]]\nname = \"a\"\ncommand = [\"true\"]\nrestart_unresponsive_after = 1.5", "clients[0].restart_unresponsive_after", "1…3600"),
            ("[[clients]]\nname = \"a\"\ncommand = [\"true\"]\nrestrat = \"always\"", "clients[0].restrat", "did you mean 'restart'"),
            ("clients = 3", "clients", "[[clients]] tables"),
            ("[launcher]\nallow_commands = \"yes\"", "launcher.allow_commands", "true or false"),
        ]
        for (text, key, words) in cases {
            let error = try #require(failure(text), "\(text)")
            #expect(error.key == key, "\(text) → \(error)")
            #expect(error.message.contains(words), "\(text) → \(error)")
        }
    }

    @Test func theClientsNeedARestartAndAllowCommandsDoesNot() throws {
        let running = try parse("[[clients]]\nname = \"a\"\ncommand = [\"true\"]")
        let changed = try parse("[launcher]\nallow_commands = true\n[[clients]]\nname = \"a\"\ncommand = [\"false\"]")
        #expect(changed.keysNeedingRestart(comparedWith: running) == ["clients"])
    }
}
