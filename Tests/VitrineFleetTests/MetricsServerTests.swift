import Foundation
import Testing
import VitrineSystem
import VitrineTestSupport

@testable import VitrineMetrics

/// `MetricsServer` on its own event loop, scraped over real TCP and a Unix socket by a raw
/// client: the answer to a scrape (status, headers, the body as given, HEAD), the refusals
/// a broken or hostile client gets (400, 404, 405, 408, 431, 503) with their words, the
/// errors of a listen that cannot be made, and `stop`.
@Suite struct MetricsServerTests {
    /// What the scrapes answer: an exposition in OpenMetrics' shape.
    static let exposition = "# HELP vitrine_frames Frames drawn.\n# TYPE vitrine_frames counter\nvitrine_frames_total 42\n# EOF\n"

    let loop: EventLoop
    let log = LogRecorder()

    init() throws { loop = try EventLoop() }

    /// A server whose body is `body` (the exposition by default), listening on a port of
    /// 127.0.0.1 the kernel picks; and that port.
    func serve(connections: Int = 4, timeout: Double = 5, body: MetricsServer.Body? = nil) throws -> (MetricsServer, Int) {
        let server = MetricsServer(
            loop: loop, connections: connections, timeout: timeout, logger: log.logger, body: body ?? { $0(Array(Self.exposition.utf8)) })
        let port = try server.listen(address: "127.0.0.1", port: 0)
        return (server, port)
    }

    /// Sends `request` on a new connection, serves until the server has answered or refused
    /// one more request, and reads the answer.
    func exchange(_ server: MetricsServer, _ connection: HTTPConnection, _ request: String) throws -> HTTPConnection.Answer {
        let before = server.answered + server.refused
        connection.write(request)
        #expect(loop.run { server.answered + server.refused > before })
        return try #require(connection.answer())
    }

    @Test func aScrapeIsAnsweredWithTheBodyAndItsHeaders() throws {
        let (server, port) = try serve()
        #expect(port > 0)
        #expect(log.lines.map { $0.message } == ["metrics on 127.0.0.1:0"])
        for request in [
            "GET /metrics HTTP/1.1\r\nHost: screen\r\nAccept: application/openmetrics-text\r\n\r\n", "GET /metrics?name[]=x HTTP/1.0\r\n\r\n",
            "GET /metrics HTTP/1.1\nHost: bare-newlines\n\n",
        ] {
            let answer = try exchange(server, try HTTPConnection(port: port), request)
            #expect(answer.status == 200)
            #expect(answer.headers == ["content-type": MetricsServer.contentType, "content-length": "\(Self.exposition.utf8.count)", "connection": "close"])
            #expect(answer.body == Self.exposition)
        }
        let head = try exchange(server, try HTTPConnection(port: port), "HEAD /metrics HTTP/1.1\r\n\r\n")
        #expect(head.status == 200 && head.headers["content-length"] == "\(Self.exposition.utf8.count)" && head.body.isEmpty)
        #expect(server.answered == 4 && server.refused == 0)
        #expect(loop.run { server.openConnections == 0 })
    }

    @Test func aBodyGivenLaterIsSentAndNoneIs503() throws {
        var busy = false
        let (server, port) = try serve { [loop] answer in
            let bytes: [UInt8]? = busy ? nil : Array("later 1\n".utf8)
            loop.schedule(after: 0.05) { answer(bytes) }
        }
        let later = try exchange(server, try HTTPConnection(port: port), "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(later.status == 200 && later.body == "later 1\n")
        busy = true
        let refused = try exchange(server, try HTTPConnection(port: port), "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(refused.status == 503 && refused.body == "the daemon is busy; scrape again\n")
        #expect(server.answered == 1 && server.refused == 1)
    }

    @Test(arguments: [
        ("POST /metrics HTTP/1.1", 405, "POST is not served; the metrics answer GET and HEAD"),
        ("DELETE /metrics HTTP/1.1", 405, "DELETE is not served; the metrics answer GET and HEAD"),
        ("GET /other HTTP/1.1", 404, "nothing at /other; the metrics are at /metrics"),
        ("GET /metricsx?y=1 HTTP/1.1", 404, "nothing at /metricsx; the metrics are at /metrics"),
        ("GET * HTTP/1.1", 404, "nothing at *; the metrics are at /metrics"),
        ("get /metrics HTTP/1.1", 400, "not an HTTP/1.1 request line; ask GET /metrics HTTP/1.1"),
        ("GET /metrics HTTP/2.0", 400, "not an HTTP/1.1 request line; ask GET /metrics HTTP/1.1"),
        ("GET /metrics", 400, "not an HTTP/1.1 request line; ask GET /metrics HTTP/1.1"),
        ("GET  /metrics HTTP/1.1", 400, "not an HTTP/1.1 request line; ask GET /metrics HTTP/1.1"),
        ("GET metrics HTTP/1.1", 400, "not an HTTP/1.1 request line; ask GET /metrics HTTP/1.1"),
        ("\u{16}\u{3}\u{1} TLS hello", 400, "not an HTTP/1.1 request line; ask GET /metrics HTTP/1.1"),
    ])
    func aBadRequestIsRefusedWithItsStatusAndWhy(line: String, status: Int, message: String) throws {
        let (server, port) = try serve()
        let answer = try exchange(server, try HTTPConnection(port: port), line + "\r\nHost: x\r\n\r\n")
        #expect(answer.status == status)
        #expect(answer.body == message + "\n")
        #expect(answer.headers["content-type"] == "text/plain; charset=utf-8" && answer.headers["content-length"] == "\(message.utf8.count + 1)")
        #expect(answer.headers["allow"] == (status == 405 ? "GET, HEAD" : nil))
        #expect(server.refused == 1 && server.answered == 0)
    }

    @Test func aHeadPastItsBoundIsRefused431() throws {
        let (server, port) = try serve()
        let request = "GET /metrics HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: MetricsServer.requestBytes + 100)
        let answer = try exchange(server, try HTTPConnection(port: port), request)
        #expect(answer.status == 431 && answer.body == "a request's head is at most \(MetricsServer.requestBytes) bytes\n")
        // A head just within the bound is answered.
        let filler = String(repeating: "b", count: MetricsServer.requestBytes - 64)
        let fits = try exchange(server, try HTTPConnection(port: port), "GET /metrics HTTP/1.1\r\nX-Padding: \(filler)\r\n\r\n")
        #expect(fits.status == 200)
    }

    @Test func aClientThatSendsNoWholeRequestIsAnswered408() throws {
        let (server, port) = try serve(timeout: 0.2)
        let connection = try HTTPConnection(port: port)
        connection.write("GET /metrics HTTP/1.1\r\n")
        #expect(loop.run { server.refused == 1 && server.openConnections == 0 })
        #expect(connection.answer()?.status == 408)
    }

    @Test func connectionsPastTheLimitAreAnswered503() throws {
        let (server, port) = try serve(connections: 1)
        let first = try HTTPConnection(port: port)
        let second = try HTTPConnection(port: port)
        #expect(loop.run { server.openConnections == 1 && server.refused == 1 })
        #expect(second.answer()?.status == 503)
        let answer = try exchange(server, first, "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(answer.status == 200 && answer.body == Self.exposition)
    }

    @Test func aUnixSocketIsServedAsThePortIs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-metrics-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("m.sock").path
        let server = MetricsServer(loop: loop, logger: log.logger) { $0(Array(Self.exposition.utf8)) }
        try server.listen(path: path)
        let answer = try exchange(server, try HTTPConnection(path: path), "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(answer.status == 200 && answer.body == Self.exposition)
        // The path is taken now: another server cannot listen there.
        let other = MetricsServer(loop: loop, logger: log.logger) { $0(nil) }
        #expect(throws: SystemError.self) { try other.listen(path: path) }
        do { try other.listen(path: path) } catch { #expect(error.message == "\(path): cannot bind the metrics socket: Address already in use") }
    }

    @Test func aListenThatCannotBeMadeSaysWhyAndWhatToDo() throws {
        let server = MetricsServer(loop: loop, logger: log.logger) { $0(nil) }
        func refusal(_ listen: () throws(SystemError) -> Void) -> String? {
            do { try listen() } catch { return error.message }
            return nil
        }
        #expect(
            refusal { () throws(SystemError) in _ = try server.listen(address: "localhost", port: 0) }
                == "metrics.address 'localhost' is not a numeric IPv4 or IPv6 address; use one such as \"127.0.0.1\"")
        let holder = try HTTPConnection.listener()
        defer { close(holder.fd) }
        #expect(
            refusal { () throws(SystemError) in _ = try server.listen(address: "127.0.0.1", port: holder.port) }
                == "127.0.0.1:\(holder.port): cannot bind the metrics port: Address already in use — another program holds this port; choose another metrics.port"
        )
        #expect(
            refusal { () throws(SystemError) in try server.listen(path: "/tmp/" + String(repeating: "s", count: 103)) }?.hasSuffix(
                "a socket path is limited to 107 bytes; choose a shorter metrics.socket") == true)
        #expect(
            refusal { () throws(SystemError) in try server.listen(path: "/nonexistent-directory/m.sock") }
                == "/nonexistent-directory/m.sock: cannot bind the metrics socket: No such file or directory")
    }

    @Test func stopClosesTheListenerAndEveryConnection() throws {
        let (server, port) = try serve()
        let waiting = try HTTPConnection(port: port)
        #expect(loop.run { server.openConnections == 1 })
        server.stop()
        #expect(server.openConnections == 0)
        #expect(waiting.answer(timeout: 5) == nil)
        #expect(throws: TestError.self) { try HTTPConnection(port: port) }
    }

    /// Request lines and what they ask for.
    static let requestLines: [(String, MetricsServer.Request)] = {
        let long = String(repeating: "p", count: 100)
        let notServed = "OPTIONS is not served; the metrics answer GET and HEAD"
        let notHTTP = "not an HTTP/1.1 request line; ask GET /metrics HTTP/1.1"
        return [
            ("GET /metrics HTTP/1.1", .metrics(head: false)), ("HEAD /metrics?x HTTP/1.0", .metrics(head: true)),
            ("OPTIONS * HTTP/1.1", .refused(status: 405, reason: "Method Not Allowed", message: notServed)),
            ("GET /\(long) HTTP/1.1", .refused(status: 404, reason: "Not Found", message: "nothing at /\(long.prefix(63)); the metrics are at /metrics")),
            ("", .refused(status: 400, reason: "Bad Request", message: notHTTP)),
        ]
    }()

    @Test(arguments: requestLines)
    func theRequestLineIsReadAlone(line: String, expected: MetricsServer.Request) {
        #expect(MetricsServer.parse(Array((line + "\r\nX: GET /metrics HTTP/1.1").utf8)) == expected)
    }

    @Test func theHeadEndsAtItsFirstBlankLine() {
        #expect(MetricsServer.endOfHead(Array("GET / HTTP/1.1\r\nA: b\r\n\r\nbody".utf8)) == 21)
        #expect(MetricsServer.endOfHead(Array("GET / HTTP/1.1\nA: b\n\nbody".utf8)) == 19)
        #expect(MetricsServer.endOfHead(Array("GET / HTTP/1.1\r\nA: b\r\n".utf8)) == nil)
        #expect(MetricsServer.endOfHead(Array("GET / HTTP/1.1\r\n\r".utf8)) == nil)
    }
}
