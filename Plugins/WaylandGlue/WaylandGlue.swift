import Foundation
import PackagePlugin

/// Generates the Swift description of the Wayland protocols a target speaks beyond the
/// core one (xdg-shell, presentation-time) with `wayland-glue`, from the XML that
/// wayland-protocols installs, at build time: nothing generated is kept in the repository.
/// The server also gets the core protocol's (`wayland.xml`, from libwayland-dev) for the
/// names of its requests and errors; its tables come from libwayland itself.
@main
struct WaylandGlue: BuildToolPlugin {
    /// Protocol XML files by target, relative to wayland-protocols' data directory
    /// (`wayland.xml`: libwayland's).
    static let protocols = [
        "VitrineOutput": ["stable/xdg-shell/xdg-shell.xml"],
        "VitrineWayland": [
            "wayland.xml", "stable/xdg-shell/xdg-shell.xml", "stable/presentation-time/presentation-time.xml", "stable/viewporter/viewporter.xml",
            "staging/fractional-scale/fractional-scale-v1.xml", "unstable/xdg-decoration/xdg-decoration-unstable-v1.xml",
            "unstable/text-input/text-input-unstable-v3.xml", "unstable/xdg-output/xdg-output-unstable-v1.xml",
            "unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml",
        ],
        // The tests' and the compositor bench's own clients.
        "vitrine-bench": [
            "stable/xdg-shell/xdg-shell.xml", "stable/presentation-time/presentation-time.xml", "unstable/text-input/text-input-unstable-v3.xml",
        ],
        "VitrineDaemonTestSupport": [
            "stable/xdg-shell/xdg-shell.xml", "stable/presentation-time/presentation-time.xml", "stable/viewporter/viewporter.xml",
            "staging/fractional-scale/fractional-scale-v1.xml", "unstable/xdg-decoration/xdg-decoration-unstable-v1.xml",
        ],
        "VitrineWaylandTests": [
            "stable/xdg-shell/xdg-shell.xml", "stable/presentation-time/presentation-time.xml", "unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml",
        ],
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let glue = try context.tool(named: "wayland-glue").url
        let data = Self.dataDirectory(of: "wayland-protocols")
        let core = Self.dataDirectory(of: "wayland-scanner")
        return try (Self.protocols[target.name] ?? []).map { relative in
            let isCore = relative == "wayland.xml"
            let xml = (isCore ? core : data).appendingPathComponent(relative)
            guard FileManager.default.fileExists(atPath: xml.path) else {
                throw GlueError("\(xml.path) is missing: apt-get install \(isCore ? "libwayland-dev" : "wayland-protocols")")
            }
            let name = xml.deletingPathExtension().lastPathComponent
            let output = context.pluginWorkDirectoryURL.appendingPathComponent("\(name)-protocol.swift")
            return .buildCommand(
                displayName: "wayland-glue \(name)", executable: glue, arguments: [xml.path, output.path], inputFiles: [xml], outputFiles: [output])
        }
    }

    /// The `pkgdatadir` of `package` (pkg-config): wayland-protocols', or wayland-scanner's
    /// (which holds wayland.xml); else /usr/share/wayland-protocols or /usr/share/wayland.
    static func dataDirectory(of package: String) -> URL {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pkg-config", "--variable=pkgdatadir", package]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        if (try? process.run()) != nil {
            let path = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            process.waitUntilExit()
            if process.terminationStatus == 0, !path.isEmpty { return URL(fileURLWithPath: path) }
        }
        return URL(fileURLWithPath: package == "wayland-protocols" ? "/usr/share/wayland-protocols" : "/usr/share/wayland")
    }
}

struct GlueError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
