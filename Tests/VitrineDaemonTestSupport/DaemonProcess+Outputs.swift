import Foundation

extension DaemonProcess {
    /// The scene of `twoOutputs`' HDMI-A-1 (left.json): a blue panel.
    public static let twoOutputsLeftScene =
        ##"{"layers": [{"id": "panel", "properties": {"bounds": [0, 0, 100, 60], "position": [60, 40], "backgroundColor": "#2050a0"}}]}"##
    /// The scene of `twoOutputs`' HDMI-A-2 (right.json): a rounded tomato badge.
    public static let twoOutputsRightScene =
        ##"{"background": "#203020", "layers": [{"id": "badge", "properties": {"bounds": [0, 0, 50, 50], "position": [100, 100], "backgroundColor": "tomato", "cornerRadius": 8}}]}"##

    /// A daemon with two emulated outputs, HDMI-A-1 (320×200, root "root", left.json)
    /// and HDMI-A-2 (200×320 at `rightRate` Hz, root "right", right.json); `extra` is
    /// appended to the second table.
    public static func twoOutputs(
        clock: String = "manual", rightRate: Int = 30, extra: String = "", in existing: URL? = nil, config: String? = nil, arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws -> (DaemonProcess, URL) {
        let directory = existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-outputs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try twoOutputsLeftScene.write(to: directory.appendingPathComponent("left.json"), atomically: true, encoding: .utf8)
        try twoOutputsRightScene.write(to: directory.appendingPathComponent("right.json"), atomically: true, encoding: .utf8)
        let twoOutputs = """
            [[outputs]]
            connector = "HDMI-A-1"
            mode = "320x200@60"
            scene = "left.json"

            [[outputs]]
            connector = "HDMI-A-2"
            mode = "200x320@\(rightRate)"
            root = "right"
            scene = "right.json"

            """
        try (config ?? (twoOutputs + extra)).write(to: directory.appendingPathComponent("vitrine.toml"), atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            clock: clock, environment: environment, arguments: ["--config", directory.appendingPathComponent("vitrine.toml").path] + arguments)
        return (daemon, directory)
    }
}
