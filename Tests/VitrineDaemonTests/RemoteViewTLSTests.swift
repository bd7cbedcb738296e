import Foundation
import Testing

/// A listener with authentication (VeNCrypt: X.509 TLS, then a user name and password),
/// against gtk-vnc's client library (Debian's libgvnc, through python3-gi): the right
/// password gets a session over TLS, a wrong one none. gtk-vnc trusts the CA it finds in
/// its user's ~/.pki/CA, so the client runs in a mount namespace where the test's
/// directory stands for /root.
@Suite struct RemoteViewTLSTests {
    static let client = #"""
        import sys, gi
        gi.require_version('GVnc', '1.0')
        from gi.repository import GVnc, GLib
        host, port, user, password = sys.argv[1:5]
        click = [int(v) for v in sys.argv[5:7]]
        loop, conn, result = GLib.MainLoop(), GVnc.Connection.new(), {"status": "disconnected"}
        def credential(c, creds):
            for i in range(creds.n_values):
                kind = int(creds.get_nth(i))
                c.set_credential(kind, {0: password, 1: user, 2: "vitrine-test"}[kind])
        def initialized(c):
            result["status"] = "initialized %dx%d %s" % (c.get_width(), c.get_height(), c.get_name())
            if not click:
                c.shutdown()
                return
            c.pointer_event(0, *click)
            c.pointer_event(1, *click)
            GLib.timeout_add(200, lambda: c.pointer_event(0, *click) and False)
            GLib.timeout_add(700, lambda: c.shutdown() and False)
        conn.connect("vnc-auth-choose-type", lambda c, types: c.set_auth_type(19))           # VeNCrypt
        conn.connect("vnc-auth-choose-subtype", lambda c, kind, subtypes: c.set_auth_subtype(262))  # X509Plain
        conn.connect("vnc-auth-credential", credential)
        conn.connect("vnc-initialized", initialized)
        conn.connect("vnc-error", lambda c, message: result.update(error=message))
        conn.connect("vnc-disconnected", lambda c: loop.quit())
        conn.open_host(host, port)
        GLib.timeout_add_seconds(15, loop.quit)
        loop.run()
        print(result["status"], result.get("error", ""))
        """#

    static var available: Bool {
        FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/girepository-1.0/GVnc-1.0.typelib")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") && getuid() == 0
    }

    /// A CA in `directory`/home/.pki/CA (where gtk-vnc looks for it) and a certificate for
    /// localhost it signed, `cert.pem` and `key.pem` in `directory`.
    static func makeCertificates(in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("home/.pki/CA"), withIntermediateDirectories: true)
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".write(toFile: path("ext.cnf"), atomically: true, encoding: .utf8)
        for arguments in [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("home/.pki/CA/cacert.pem"), "-days", "2", "-subj",
                "/CN=Vitrine test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            ],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("key.pem"), "-out", path("server.csr"), "-subj", "/CN=localhost"],
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("home/.pki/CA/cacert.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
                "-out", path("cert.pem"), "-days", "2", "-extfile", path("ext.cnf"),
            ],
        ] {
            let (status, stderr) = try ChildProcess.runToExit("/usr/bin/openssl", arguments)
            try #require(status == 0, "openssl \(arguments[0]): \(stderr)")
        }
        try client.write(toFile: path("client.py"), atomically: true, encoding: .utf8)
    }

    /// Connects gtk-vnc's client to `port` as `user` with `password` (trusting the CA of
    /// `directory`), clicking at `click` once initialized: its last words, "initialized
    /// WxH name" when it got in.
    static func connect(_ directory: URL, port: Int, user: String, password: String, click: (Int, Int)? = nil) throws -> String {
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let point = click.map { " \($0.0) \($0.1)" } ?? ""
        let script =
            "mount --bind \(path("home")) /root && exec /usr/bin/python3 -W ignore \(path("client.py")) localhost \(port) '\(user)' '\(password)'\(point)"
        let output = path("client.out")
        let (status, stderr) = try ChildProcess.runToExit(
            "/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script + " > \(output)"], timeout: 30)
        try #require(status == 0, "\(stderr)")
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    @Test(.enabled(if: available, "gtk-vnc's typelib, python3-gi and openssl are not installed (CI installs them), or not root"))
    func theRightPasswordGetsASessionOverTLSAndAWrongOneNone() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-tls-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.makeCertificates(in: directory)
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        try "# who may watch\nalice:s3cret\n".write(toFile: path("passwords"), atomically: true, encoding: .utf8)
        let (daemon, port) = try RemoteViewTests.daemon(
            "tls_certificate = \"\(path("cert.pem"))\"\ntls_key = \"\(path("key.pem"))\"\npassword_file = \"\(path("passwords"))\"\n")
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "ping"}"#)
        func connect(_ password: String) throws -> String { try Self.connect(directory, port: port, user: "alice", password: password) }
        let right = try connect("s3cret")
        #expect(right.hasPrefix("initialized 320x200 Vitrine headless"), "\(right)")
        let wrong = try connect("guess")
        #expect(!wrong.hasPrefix("initialized"), "\(wrong)")
        #expect(daemon.isRunning)
    }
}
