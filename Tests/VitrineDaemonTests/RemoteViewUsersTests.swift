import Foundation
import Testing
import VitrineProtocol
import VitrineTestSupport

/// Who may operate and who may only watch, per user, over VeNCrypt (gtk-vnc's client):
/// a password file's `user:password:view-only` lines, and PAM (`auth = "pam"`) with a
/// real service file under /etc/pam.d, pam_unix and users made by useradd, its view-only
/// users by group. A view-only user's click reaches nothing; an operator's taps.
@Suite(.serialized) struct RemoteViewUsersTests {
    static let scene = [
        ##"{"cmd": "layer.add", "layer": "button", "properties": {"bounds": [0, 0, 100, 50], "position": [160, 100], "backgroundColor": "#ff0000"}}"##,
        #"{"cmd": "subscribe", "events": ["layer.tap", "remote.connected"]}"#,
    ]

    static var available: Bool {
        RemoteViewTLSTests.available && FileManager.default.isExecutableFile(atPath: "/usr/sbin/useradd")
            && FileManager.default.fileExists(atPath: "/lib/x86_64-linux-gnu/security/pam_unix.so")
    }

    /// Connects as `user`, clicks the button, and returns what the session was and the
    /// taps that followed.
    static func click(_ c: SocketClient, _ directory: URL, port: Int, user: String, password: String) throws -> (
        said: String, session: JSON?, taps: Int
    ) {
        let said = try RemoteViewTLSTests.connect(directory, port: port, user: user, password: password, click: (160, 100))
        usleep(300_000)
        let events = try c.drain()
        let session = events.first { $0["event"] == .string("remote.connected") }
        return (said, session, events.filter { $0["event"] == .string("layer.tap") }.count)
    }

    static func run(_ command: String, _ arguments: [String], input: String? = nil) throws {
        let line = ([command] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let (status, stderr) = try ChildProcess.runToExit("/bin/sh", ["-c", input.map { "printf '%s\\n' '\($0)' | \(line)" } ?? line])
        try #require(status == 0, "\(command) \(arguments): \(stderr)")
    }

    @Test(.enabled(if: RemoteViewTLSTests.available, "gtk-vnc's typelib, python3-gi and openssl are not installed (CI installs them), or not root"))
    func aPasswordFileUserMarkedViewOnlyWatchesAndAnotherOperates() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-users-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        try RemoteViewTLSTests.makeCertificates(in: directory)
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        try "alice:s3cret\nbob:w4tch:view-only\n".write(toFile: path("passwords"), atomically: true, encoding: .utf8)
        let (daemon, port) = try RemoteViewTests.daemon(
            "tls_certificate = \"\(path("cert.pem"))\"\ntls_key = \"\(path("key.pem"))\"\npassword_file = \"\(path("passwords"))\"\n")
        let c = try daemon.connect()
        for line in Self.scene { try c.ok(line) }
        let bob = try Self.click(c, directory, port: port, user: "bob", password: "w4tch")
        #expect(bob.said.hasPrefix("initialized"), "\(bob.said)")
        #expect(bob.session?["user"] == .string("bob") && bob.session?["viewOnly"] == .bool(true), "\(String(describing: bob.session))")
        #expect(bob.taps == 0)
        let alice = try Self.click(c, directory, port: port, user: "alice", password: "s3cret")
        #expect(alice.session?["user"] == .string("alice") && alice.session?["viewOnly"] == .bool(false), "\(String(describing: alice.session))")
        #expect(alice.taps == 1)
        #expect(!(try Self.click(c, directory, port: port, user: "bob", password: "s3cret").said.hasPrefix("initialized")))
    }

    @Test(.enabled(if: available, "gtk-vnc, openssl, useradd or pam_unix missing (CI installs them), or not root"))
    func pamUsersGetInAndAGroupMakesThemViewOnly() throws {
        let tag = String(UUID().uuidString.prefix(6)).lowercased()
        let (service, group, operatorName, watcher) = ("vitrine-vnc-test-\(tag)", "vncwatch\(tag)", "vncop\(tag)", "vncview\(tag)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-pam-\(tag)")
        let serviceFile = "/etc/pam.d/\(service)"
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(atPath: serviceFile)
            for user in [operatorName, watcher] { _ = try? ChildProcess.runToExit("/usr/sbin/userdel", [user]) }
            _ = try? ChildProcess.runToExit("/usr/sbin/groupdel", [group])
        }
        try "auth required pam_unix.so\naccount required pam_unix.so\n".write(toFile: serviceFile, atomically: true, encoding: .utf8)
        try Self.run("/usr/sbin/groupadd", [group])
        try Self.run("/usr/sbin/useradd", ["-M", "-s", "/usr/sbin/nologin", operatorName])
        try Self.run("/usr/sbin/useradd", ["-M", "-s", "/usr/sbin/nologin", "-G", group, watcher])
        try Self.run("/usr/sbin/chpasswd", [], input: "\(operatorName):0per-\(tag)")
        try Self.run("/usr/sbin/chpasswd", [], input: "\(watcher):v1ew-\(tag)")
        try RemoteViewTLSTests.makeCertificates(in: directory)
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let (daemon, port) = try RemoteViewTests.daemon(
            "tls_certificate = \"\(path("cert.pem"))\"\ntls_key = \"\(path("key.pem"))\"\nauth = \"pam\"\npam_service = \"\(service)\"\nview_only_group = \"\(group)\"\n"
        )
        let c = try daemon.connect()
        for line in Self.scene { try c.ok(line) }
        let watching = try Self.click(c, directory, port: port, user: watcher, password: "v1ew-\(tag)")
        #expect(watching.said.hasPrefix("initialized"), "\(watching.said) \(daemon.standardError)")
        #expect(watching.session?["viewOnly"] == .bool(true) && watching.taps == 0, "\(String(describing: watching.session))")
        let operating = try Self.click(c, directory, port: port, user: operatorName, password: "0per-\(tag)")
        #expect(operating.session?["user"] == .string(operatorName) && operating.session?["viewOnly"] == .bool(false))
        #expect(operating.taps == 1)
        let wrong = try Self.click(c, directory, port: port, user: operatorName, password: "guess")
        #expect(!wrong.said.hasPrefix("initialized") && wrong.session == nil, "\(wrong.said)")
        #expect(daemon.isRunning)
    }
}
