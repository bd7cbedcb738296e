import Foundation
import VitrineJSON

/// A Mosquitto broker started by a test on a free loopback port, with a generated
/// configuration (plain TCP, or TLS with a test CA and client certificates), stopped when
/// released. `stop` and `start` take it down and bring it back on the same port.
public final class MosquittoBroker {
    public let directory: URL
    public let port: Int
    /// The TLS files when the broker speaks TLS: the CA and a client's certificate and key.
    public let tls: (ca: String, cert: String, key: String)?
    private var process: ChildProcess?

    public static var isAvailable: Bool {
        ["/usr/sbin/mosquitto", "/usr/bin/mosquitto_pub", "/usr/bin/mosquitto_sub", "/usr/bin/openssl"].allSatisfy(FileManager.default.isExecutableFile)
    }

    /// `anonymous: false` refuses clients without credentials (CONNACK "not authorised").
    public init(tls useTLS: Bool = false, anonymous: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-broker-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try HTTPConnection.freePort()
        var conf = "listener \(port) 127.0.0.1\nallow_anonymous \(anonymous)\npersistence false\n"
        if useTLS {
            let files = try Self.makeCertificates(in: directory)
            conf += "cafile \(files.ca)\ncertfile \(files.serverCert)\nkeyfile \(files.serverKey)\nrequire_certificate true\n"
            tls = (files.ca, files.clientCert, files.clientKey)
        } else {
            tls = nil
        }
        try conf.write(to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        _ = process?.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the broker and waits until it takes connections.
    public func start() throws {
        process = try ChildProcess(
            "/usr/sbin/mosquitto", ["-c", directory.appendingPathComponent("mosquitto.conf").path],
            stderrPath: directory.appendingPathComponent("mosquitto.log").path)
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(port) {
            guard Date() < deadline, process?.isRunning == true else { throw TestError("mosquitto did not start: \(log)") }
            usleep(20_000)
        }
    }

    public func stop() {
        _ = process?.terminate()
        process = nil
    }

    public var log: String { (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? "" }

    /// The client tools' options for this broker.
    public var clientOptions: [String] {
        ["-h", tls == nil ? "127.0.0.1" : "localhost", "-p", String(port)] + (tls.map { ["--cafile", $0.ca, "--cert", $0.cert, "--key", $0.key] } ?? [])
    }

    /// `mosquitto_pub` of one message at QoS 1.
    public func publish(_ topic: String, _ message: String, retain: Bool = false) throws {
        let file = directory.appendingPathComponent("message-\(UUID().uuidString.prefix(8))")
        try Data(message.utf8).write(to: file)
        let log = directory.appendingPathComponent("pub.log").path
        let process = try ChildProcess(
            "/usr/bin/mosquitto_pub", clientOptions + ["-q", "1", "-t", topic, "-f", file.path] + (retain ? ["-r"] : []), stderrPath: log)
        let status = process.wait(timeout: 10) ?? process.terminate()
        guard status == 0 else { throw TestError("mosquitto_pub failed (\(status)): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")") }
    }

    /// A `mosquitto_sub` on `topic`, printing "topic payload" lines into a file.
    public func subscribe(_ topic: String = "vitrine/#") throws -> MQTTSubscriber { try MQTTSubscriber(broker: self, topic: topic) }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A test CA (openssl), the broker's certificate for localhost and a client's.
    private static func makeCertificates(in directory: URL) throws -> (ca: String, serverCert: String, serverKey: String, clientCert: String, clientKey: String)
    {
        let d = directory.path
        let script = """
            set -e
            cd '\(d)'
            openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=vitrine-test-ca -keyout ca.key -out ca.crt
            openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr
            printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > server.ext
            openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out server.crt
            openssl req -newkey rsa:2048 -nodes -subj /CN=screen -keyout client.key -out client.csr
            openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out client.crt
            chmod 644 *.key
            """
        let log = d + "/openssl.log"
        let process = try ChildProcess("/bin/sh", ["-c", script], stderrPath: log)
        guard (process.wait(timeout: 60) ?? process.terminate()) == 0 else {
            throw TestError("openssl failed: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        return (d + "/ca.crt", d + "/server.crt", d + "/server.key", d + "/client.crt", d + "/client.key")
    }
}

/// A `mosquitto_sub -v` writing what it receives to a file, which the test reads.
public final class MQTTSubscriber {
    private let process: ChildProcess
    private let path: String

    public init(broker: MosquittoBroker, topic: String) throws {
        path = broker.directory.appendingPathComponent("sub-\(UUID().uuidString.prefix(8)).txt").path
        let command = (["exec", "/usr/bin/mosquitto_sub", "-v", "-q", "1", "-t", topic] + broker.clientOptions).map { "'\($0)'" }.joined(separator: " ")
        process = try ChildProcess("/bin/sh", ["-c", command + " > '\(path)'"], stderrPath: path + ".err")
    }

    deinit { _ = process.terminate() }

    /// The messages so far, as (topic, payload).
    public var messages: [(topic: String, payload: String)] {
        // (lossy: a binary payload, such as a thumbnail's, spoils no other message)
        let text = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return text.split(separator: "\n").map { line in
            let space = line.firstIndex(of: " ") ?? line.endIndex
            return (String(line[..<space]), String(line[space...].dropFirst()))
        }
    }

    /// The payloads on `topic` parsed as JSON.
    public func json(on topic: String) -> [JSON] {
        messages.filter { $0.topic == topic }.compactMap { try? JSON(parsing: $0.payload) }
    }

    /// Waits until `condition` holds of the messages; whether it did within `timeout`.
    @discardableResult
    public func wait(timeout: Double = 15, until condition: (MQTTSubscriber) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(self) { return true }
            usleep(20_000)
        }
        return condition(self)
    }
}
