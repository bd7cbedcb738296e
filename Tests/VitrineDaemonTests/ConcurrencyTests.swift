import Foundation
import Synchronization
import Testing
import VitrineProtocol

/// Many clients at once, each on its own thread with pipelined requests: every reply
/// arrives, in request order per client, with the right result, and the scene holds
/// exactly what they built.
@Suite struct ConcurrencyTests {
    static let clientCount = 56
    static let rounds = 4

    /// Round `r` of client `c`: requests for its own layers, and the result each must get.
    static func round(_ r: Int, client c: Int) -> [(request: String, check: (JSON) -> Bool)] {
        let base = "c\(c)-r\(r)"
        let x = Double(c * 10 + r), y = Double(r * 7 + 1)
        var steps: [(String, (JSON) -> Bool)] = []
        steps.append(
            (
                #"{"cmd": "layer.add", "layer": "\#(base)-a", "properties": {"bounds": [0, 0, 10, 10], "position": [\#(x), \#(y)], "tag": "\#(base)"}}"#,
                { $0["result"] == .object(["layer": .string("\(base)-a")]) }
            ))
        steps.append(
            (
                #"{"cmd": "layer.add", "layer": "\#(base)-b", "parent": "\#(base)-a", "kind": "text", "properties": {"string": "client \#(c) round \#(r)"}}"#,
                { $0["result"] == .object(["layer": .string("\(base)-b")]) }
            ))
        steps.append(
            (
                #"{"cmd": "layer.set", "layer": "\#(base)-a", "properties": {"position.x": \#(x + 0.5), "opacity": 0.5}, "actions": false}"#,
                { $0["result"]?["layer"] == .string("\(base)-a") && $0["result"]?["transaction"]?.number != nil }
            ))
        steps.append(
            (
                #"{"cmd": "layer.get", "layer": "\#(base)-a", "keys": ["position", "opacity", "tag"]}"#,
                {
                    $0["result"]?["properties"]
                        == .object(["position": .array([.number(x + 0.5), .number(y)]), "opacity": .number(0.5), "tag": .string(base)])
                }
            ))
        steps.append(
            (
                #"{"cmd": "layer.get", "layer": "\#(base)-b", "keys": ["string"]}"#,
                { $0["result"]?["properties"]?["string"] == .string("client \(c) round \(r)") && $0["result"]?["parent"] == .string("\(base)-a") }
            ))
        steps.append(
            (
                #"{"cmd": "layer.add", "layer": "c\#(c)-r0-a", "properties": {}}"#,
                { $0["error"]?["code"] == .string("duplicate_id") }
            ))
        steps.append(
            (
                #"{"cmd": "transaction", "commands": [{"cmd": "layer.add", "layer": "\#(base)-t", "parent": "\#(base)-b"}, {"cmd": "layer.set", "layer": "\#(base)-b", "properties": {"string": "done \#(r)"}}]}"#,
                { $0["result"]?["transaction"]?.number != nil }
            ))
        steps.append(
            (
                #"{"cmd": "layer.tree", "root": "\#(base)-a"}"#,
                {
                    $0["result"]
                        == .object([
                            "layer": .string("\(base)-a"), "kind": .string("layer"),
                            "sublayers": .array([
                                .object([
                                    "layer": .string("\(base)-b"), "kind": .string("text"),
                                    "sublayers": .array([
                                        .object(["layer": .string("\(base)-t"), "kind": .string("layer"), "sublayers": .array([])])
                                    ]),
                                ])
                            ]),
                        ])
                }
            ))
        steps.append((#"{"cmd": "ping"}"#, { $0["result"]?["pong"] == .bool(true) }))
        return steps
    }

    @Test func manyClientsInterleaveAndEachGetsItsRepliesInOrder() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48"])
        let clients = try (0..<Self.clientCount).map { _ in try daemon.connect() }
        let problems = Mutex<[String]>([])
        let replyCount = Mutex(0)
        let transactions = Mutex<[Int: [Double]]>([:])
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for (c, client) in clients.enumerated() {
            nonisolated(unsafe) let client = client
            done.enter()
            Thread {
                defer { done.leave() }
                start.wait()
                var nextID = 0
                func fail(_ text: String) { problems.withLock { $0.append("client \(c): \(text)") } }
                for r in 0..<Self.rounds {
                    // The whole round in one write: the daemon sees the clients' requests interleaved.
                    let steps = Self.round(r, client: c)
                    var batch = ""
                    for step in steps {
                        nextID += 1
                        batch += step.request.replacingOccurrences(of: #"{"cmd""#, with: #"{"id": "\#(c):\#(nextID)", "cmd""#, options: .anchored) + "\n"
                    }
                    client.write(Array(batch.utf8))
                    var expected = nextID - steps.count
                    for step in steps {
                        expected += 1
                        var reply: JSON?
                        while reply == nil {
                            guard let line = client.readLine(timeout: 20) else { fail("no reply for id \(expected)"); return }
                            guard let json = try? JSON(parsing: Data(line.utf8)) else { fail("not JSON: \(line)"); return }
                            if json["event"] == nil { reply = json }
                        }
                        replyCount.withLock { $0 += 1 }
                        if let tx = reply?["result"]?["transaction"]?.number { transactions.withLock { $0[c, default: []].append(tx) } }
                        guard reply?["id"] == .string("\(c):\(expected)") else { fail("expected id \(c):\(expected), got \(reply!)"); return }
                        if !step.check(reply!) { fail("\(step.request) → \(reply!)") }
                    }
                }
            }.start()
        }
        for _ in clients { start.signal() }
        #expect(done.wait(timeout: .now() + 60) == .success, "clients still waiting after 60 s")
        let found = problems.withLock { $0 }
        #expect(found.isEmpty, "\(found.count) problems:\n\(found.prefix(20).joined(separator: "\n"))")
        #expect(replyCount.withLock { $0 } == Self.clientCount * Self.rounds * Self.round(0, client: 0).count)

        // The daemon really saw them interleaved: transaction ids are global, so the spans
        // of ids the clients got overlap (served one after another they would not).
        let spans = transactions.withLock { $0 }.values.map { ($0.min()!, $0.max()!) }.sorted { $0.0 < $1.0 }
        let overlaps = zip(spans, spans.dropFirst()).filter { $1.0 < $0.1 }.count
        #expect(overlaps > 0, "no client's requests were interleaved with another's")
        print("ConcurrencyTests: \(overlaps) overlaps among \(spans.count) clients' transaction spans")

        // The scene holds every client's layers, each where its client put it.
        let observer = try daemon.connect()
        let tree = try #require(try observer.exchange(#"{"id": "tree", "cmd": "layer.tree"}"#)?["result"])
        let top = Set((tree["sublayers"]?.array ?? []).compactMap { $0["layer"]?.string })
        var expected: Set<String> = []
        for c in 0..<Self.clientCount { for r in 0..<Self.rounds { expected.insert("c\(c)-r\(r)-a") } }
        #expect(top == expected, "missing \(expected.subtracting(top).sorted().prefix(5)), extra \(top.subtracting(expected).sorted().prefix(5))")
        let sample = try #require(try observer.exchange(#"{"id": "b", "cmd": "layer.get", "layer": "c7-r3-b", "keys": ["string"]}"#))
        #expect(sample["result"]?["properties"]?["string"] == .string("done 3"), "\(sample)")
    }
}
