import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineJSON

/// `[[outputs]] cec` with adapters that cannot be used: the daemon starts and draws, says
/// why in `output.list`, and `cec.send` fails with the reason. (The TV itself, on the
/// kernel's CEC framework with vivid's emulated adapters and cec-follower as the TV, is
/// .ci/drm-test cec.)
@Suite struct TVControlTests {
    @Test func anAdapterThatCannotBeUsedIsReportedAndChangesNothingElse() throws {
        let (daemon, directory) = try DaemonProcess.twoOutputs(extra: "cec = \"/dev/null\"\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        _ = try c.request(#"{"cmd": "clock.set", "time": 1}"#)
        let outputs = try c.request(#"{"cmd": "output.list"}"#)["result"]?["outputs"]?.array ?? []
        let left = try #require(outputs.first { $0["name"] == .string("HDMI-A-1") })
        let right = try #require(outputs.first { $0["name"] == .string("HDMI-A-2") })
        #expect(left["tvPower"] == nil && left["cec"] == nil, "an output without cec says nothing of a TV: \(left)")
        #expect(right["tvPower"] == .string("unknown"))
        #expect(right["cec"]?["device"] == .string("/dev/null"))
        let error = right["cec"]?["error"]?.string ?? ""
        #expect(error.contains("/dev/null") && error.contains("CEC adapter"), "\(error)")
        #expect(right["power"] == .bool(true))

        let send = try c.request(#"{"cmd": "cec.send", "output": "right", "opcode": "give-device-power-status"}"#)
        #expect(send["error"]?["code"] == .string("not_allowed"), "\(send)")
        #expect(send["error"]?["message"]?.string?.contains("/dev/null") == true, "\(send)")
        let other = try c.request(#"{"cmd": "cec.send", "output": "HDMI-A-1", "opcode": "standby"}"#)
        #expect(other["error"]?["code"] == .string("not_allowed"), "\(other)")
        let power = try c.request(#"{"cmd": "output.power", "output": "right", "on": false}"#)
        #expect(power["result"]?["power"] == .bool(false) && power["result"]?["tvPower"] == .string("unknown"), "\(power)")
        #expect(try c.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
    }

    @Test func aMissingAdapterSaysWhereTheyAre() throws {
        let (daemon, directory) = try DaemonProcess.twoOutputs(extra: "cec = \"/dev/cec-vitrine-missing\"\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        let outputs = try c.request(#"{"cmd": "output.list"}"#)["result"]?["outputs"]?.array ?? []
        let right = try #require(outputs.first { $0["name"] == .string("HDMI-A-2") })
        let error = right["cec"]?["error"]?.string ?? ""
        #expect(error.contains("/dev/cec-vitrine-missing") && error.contains("ls /dev/cec*"), "\(error)")
    }

    /// A reload follows `cec`: the adapter a changed key names is opened in place of the
    /// old one, and a removed key ends the TV control.
    @Test func aReloadFollowsTheCecKeys() throws {
        let (daemon, directory) = try DaemonProcess.twoOutputs(extra: "cec = \"/dev/null\"\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        let config = directory.appendingPathComponent("vitrine.toml")
        let text = try String(contentsOf: config, encoding: .utf8)
        func cec(after replacement: String) throws -> JSON? {
            try text.replacingOccurrences(of: "cec = \"/dev/null\"\n", with: replacement).write(to: config, atomically: true, encoding: .utf8)
            let reply = try c.request(#"{"cmd": "config.reload"}"#)
            #expect(reply["result"]?["restartNeeded"] == .array([]), "\(reply)")
            let outputs = try c.request(#"{"cmd": "output.list"}"#)["result"]?["outputs"]?.array ?? []
            return try #require(outputs.first { $0["name"] == .string("HDMI-A-2") })["cec"]
        }
        let moved = try cec(after: "cec = \"/dev/cec-vitrine-missing\"\n")
        #expect(moved?["device"] == .string("/dev/cec-vitrine-missing"), "\(String(describing: moved))")
        #expect((moved?["error"]?.string ?? "").contains("/dev/cec-vitrine-missing"), "\(String(describing: moved))")
        #expect(try cec(after: "") == nil, "no cec key, no TV")
        let back = try cec(after: "cec = \"/dev/null\"\n")
        #expect(back?["device"] == .string("/dev/null") && (back?["error"]?.string ?? "").contains("CEC adapter"), "\(String(describing: back))")
        #expect(daemon.stop() == 0)
    }

    @Test func aBadCecKeyIsRefusedAtLoad() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-cec-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml")
        try "[[outputs]]\nconnector = \"HDMI-A-1\"\ncec = \"cec0\"\n".write(to: config, atomically: true, encoding: .utf8)
        let (status, stderr) = try DaemonProcess.runToExit([
            "--backend", "headless", "--config", config.path, "--socket", directory.appendingPathComponent("s").path,
        ])
        #expect(status != 0)
        #expect(stderr.contains("cec") && stderr.contains("/dev/cec0"), "\(stderr)")
    }
}
