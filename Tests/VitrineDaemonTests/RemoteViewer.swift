import Foundation
import Testing
import VitrineRaster
import VitrineTestSupport

/// A VNC viewer that stays connected (vncdotool's RFB client on Twisted, from PyPI): it
/// asks for an incremental update as soon as each one is read, as viewers do, for
/// `seconds`, then writes its picture as a PNG and the CLOCK_MONOTONIC time of each update
/// it read as JSON.
struct RemoteViewer {
    static let script = #"""
        import json, sys, time
        from twisted.internet import reactor
        from vncdotool.client import VNCDoToolClient, VNCDoToolFactory
        address, seconds, png, report = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
        times, state = [], {}
        class Viewer(VNCDoToolClient):
            def commitUpdate(self, rectangles=None):
                times.append(time.monotonic())
                self.framebufferUpdateRequest(incremental=1)
        factory = VNCDoToolFactory()
        factory.protocol = Viewer
        def connected(protocol):
            state["protocol"] = protocol
            protocol.framebufferUpdateRequest(incremental=0)
        def finish():
            protocol = state.get("protocol")
            if protocol is not None and protocol.screen is not None:
                protocol.screen.save(png)
            with open(report, "w") as f:
                json.dump({"updates": times}, f)
            reactor.stop()
        def failed(reason):
            print(reason, file=sys.stderr)
            reactor.stop()
        factory.deferred.addCallbacks(connected, failed)
        if address.startswith("/"):
            reactor.connectUNIX(address, factory)
        else:
            reactor.connectTCP("127.0.0.1", int(address), factory)
        reactor.callLater(seconds, finish)
        reactor.run()
        """#

    let process: ChildProcess
    let png: String
    let report: String
    let stderr: String

    /// Starts a viewer of the listener on `address` (a port on 127.0.0.1, or a Unix
    /// socket's path) for `seconds`, its files in `directory`.
    init(_ address: String, seconds: Double, in directory: URL, name: String = "viewer") throws {
        let script = directory.appendingPathComponent("viewer.py").path
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        png = directory.appendingPathComponent("\(name).png").path
        report = directory.appendingPathComponent("\(name).json").path
        stderr = directory.appendingPathComponent("\(name).stderr").path
        process = try ChildProcess("/usr/bin/env", ["python3", "-W", "ignore", script, address, String(seconds), png, report], stderrPath: stderr)
    }

    /// Waits for the viewer to finish: its picture and the times of the updates it read.
    func finish(timeout: Double = 30) throws -> (picture: Surface, updates: [Double]) {
        _ = process.wait(timeout: timeout)
        let errors = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        let data = try #require(FileManager.default.contents(atPath: report), "the viewer wrote no report: \(errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let updates = try #require(json["updates"] as? [Double])
        return (try Surface(contentsOfPNG: png), updates)
    }

    /// CLOCK_MONOTONIC now, the clock the viewer stamps updates with.
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
