import Foundation
import Testing

/// `vitrined render`: a scene file drawn to a PNG, and what it says when it cannot be.
@Suite struct RenderCommandTests {
    struct Run {
        let status: Int32?
        let stderr: String
    }

    /// Calls `body` with a fresh directory holding `scene` as `scene.json`.
    func withScene(_ scene: String, _ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-render-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try scene.write(to: directory.appendingPathComponent("scene.json"), atomically: true, encoding: .utf8)
        try body(directory)
    }

    /// Runs `vitrined render` with `arguments` in a fresh directory holding `scene` as
    /// `scene.json`; `body` gets the directory and the run.
    func render(scene: String, _ arguments: [String], _ body: (URL, Run) throws -> Void) throws {
        try withScene(scene) { directory in try render(in: directory, arguments, body) }
    }

    private func render(in directory: URL, _ arguments: [String], _ body: (URL, Run) throws -> Void) throws {
        let stderrPath = directory.appendingPathComponent("stderr").path
        let child = try ChildProcess(
            DaemonProcess.executable.path,
            ["render", "--scene", directory.appendingPathComponent("scene.json").path]
                + arguments.map {
                    $0.replacingOccurrences(of: "$DIR", with: directory.path)
                },
            stderrPath: stderrPath)
        let status = child.wait(timeout: 60)
        try body(directory, Run(status: status, stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""))
    }

    static let number =
        #"{"layers": [{"id": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, 200, 60], "position": [100, 50], "value": 1234, "format": "currency", "currencyCode": "CODE"}}]}"#

    @Test func aSceneBecomesAPNG() throws {
        try render(scene: Self.number.replacingOccurrences(of: "CODE", with: "EUR"), ["--size", "200x100", "--out", "$DIR/out.png"]) { directory, run in
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
            let png = try Data(contentsOf: directory.appendingPathComponent("out.png"))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
    }

    @Test func aSceneItCannotDrawSaysWhyWithoutTheUsage() throws {
        try render(scene: Self.number.replacingOccurrences(of: "CODE", with: "EURO"), ["--out", "$DIR/out.png"]) { directory, run in
            #expect(run.status == 1, "\(run)")
            #expect(run.stderr.hasPrefix("vitrined render: ") && run.stderr.contains("'EURO' is not an ISO 4217 currency code"), "\(run.stderr)")
            #expect(!run.stderr.contains("Usage"))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.png").path))
        }
    }

    /// The daemon given a scene it cannot show does not start, and says which scene and why.
    @Test func theDaemonRefusesAnInitialSceneItCannotShow() throws {
        try withScene(Self.number.replacingOccurrences(of: "CODE", with: "EURO")) { directory in
            let stderrPath = directory.appendingPathComponent("daemon.stderr").path
            let scene = directory.appendingPathComponent("scene.json").path
            let config = directory.appendingPathComponent("empty.toml").path
            FileManager.default.createFile(atPath: config, contents: Data())
            let child = try ChildProcess(
                DaemonProcess.executable.path,
                ["--backend", "headless", "--config", config, "--socket", directory.appendingPathComponent("v.sock").path, "--scene", scene],
                stderrPath: stderrPath)
            let status = child.wait(timeout: 30)
            let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            #expect(status == 1, "\(stderr)")
            #expect(stderr.contains("the scene \(scene) cannot be shown: invalid value for 'currencyCode': 'EURO'"), "\(stderr)")
        }
    }

    @Test func aBadOptionIsAUsageError() throws {
        try render(scene: Self.number.replacingOccurrences(of: "CODE", with: "EUR"), ["--time", "-1", "--out", "$DIR/out.png"]) { _, run in
            #expect(run.status == 64 && run.stderr.contains("--time") && run.stderr.contains("Usage"), "\(run)")
        }
    }
}
