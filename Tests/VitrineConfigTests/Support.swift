import Foundation
import Testing
@testable import VitrineConfig

/// The file name errors are reported against in these tests.
let configPath = "/etc/vitrine/vitrine.toml"

/// The repository's root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func parse(_ toml: String, source: String = configPath) throws -> Configuration {
    try Configuration(toml: toml, source: source)
}

/// The error `toml` gives; records an issue when it parses.
func failure(_ toml: String, source: String = configPath, sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
    do {
        _ = try Configuration(toml: toml, source: source)
        Issue.record("parsed without an error:\n\(toml)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Every stored leaf of a value, by dotted path, rendered as text.
func leaves(_ value: Any, path: String = "") -> [String: String] {
    let mirror = Mirror(reflecting: value)
    let isLeaf =
        mirror.children.isEmpty || mirror.displayStyle == .enum || mirror.displayStyle == .collection
        || mirror.displayStyle == .optional || path.hasSuffix("headlessSize") || path.hasSuffix("implicitTiming")
        || path.hasSuffix("background")
    if isLeaf && !path.isEmpty { return [path: String(describing: value)] }
    var result: [String: String] = [:]
    for child in mirror.children {
        guard let label = child.label else { continue }
        result.merge(leaves(child.value, path: path.isEmpty ? label : path + "." + label)) { a, _ in a }
    }
    return result
}

/// A temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
