import Foundation
import PackagePlugin

/// Generates the Swift description of the Wayland protocols a target speaks beyond the
/// core one (xdg-shell, presentation-time) with `wayland-glue`, from the XML that
/// wayland-protocols installs, at build time: nothing generated is kept in the repository.
@main
struct WaylandGlue: BuildToolPlugin {
    /// Protocol XML files by target, relative to wayland-protocols' data directory.
    static let protocols = [
        "VitrineOutput": ["stable/xdg-shell/xdg-shell.xml"],
        "VitrineWayland": [
            "stable/xdg-shell/xdg-shell.xml", "stable/presentation-time/presentation-time.xml", "stable/viewporter/viewporter.xml",
        ],
        // The tests' and the compositor bench's own clients.
        "vitrine-bench": ["stable/xdg-shell/xdg-shell.xml", "stable/presentation-time/presentation-time.xml"],
        "VitrineDaemonTests": [
            "stable/xdg-shell/xdg-shell.xml", "stable/presentation-time/presentation-time.xml", "stable/viewporter/viewporter.xml",
        ],
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let glue = try context.tool(named: "wayland-glue").url
        let data = Self.protocolDirectory()
        return try (Self.protocols[target.name] ?? []).map { relative in
            let xml = data.appendingPathComponent(relative)
            guard FileManager.default.fileExists(atPath: xml.path) else {
                throw GlueError("\(xml.path) is missing: apt-get install wayland-protocols")
            }
            let name = xml.deletingPathExtension().lastPathComponent
            let output = context.pluginWorkDirectoryURL.appendingPathComponent("\(name)-protocol.swift")
            return .buildCommand(
                displayName: "wayland-glue \(name)", executable: glue, arguments: [xml.path, output.path], inputFiles: [xml], outputFiles: [output])
        }
    }

    /// wayland-protocols' `pkgdatadir` (pkg-config), else /usr/share/wayland-protocols.
    static func protocolDirectory() -> URL {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pkg-config", "--variable=pkgdatadir", "wayland-protocols"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        if (try? process.run()) != nil {
            let path = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            process.waitUntilExit()
            if process.terminationStatus == 0, !path.isEmpty { return URL(fileURLWithPath: path) }
        }
        return URL(fileURLWithPath: "/usr/share/wayland-protocols")
    }
}

struct GlueError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
