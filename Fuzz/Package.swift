// swift-tools-version:6.1
import Foundation
import PackageDescription

/// Coverage-guided fuzzers (libFuzzer) for what reads outside input: the request decoder,
/// the TOML configuration, scene files, image files and a decoder helper's replies. Kept apart from the root package
/// so that its build and `swift test` do not change; `Fuzz/run` builds and runs them
/// (docs/FUZZING.md).

/// The root package's identity: the name of the directory that holds it.
let vitrine = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "VitrineFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "fuzz-request",
            dependencies: [.product(name: "VitrineProtocol", package: vitrine)]),
        .executableTarget(
            name: "fuzz-config",
            dependencies: [
                "FuzzSupport",
                .product(name: "VitrineConfig", package: vitrine),
                .product(name: "VitrineCore", package: vitrine),
                .product(name: "VitrineText", package: vitrine),
            ]),
        .executableTarget(
            name: "fuzz-scene",
            dependencies: [
                "FuzzSupport",
                .product(name: "VitrineCore", package: vitrine),
                .product(name: "VitrineProtocol", package: vitrine),
            ]),
        .executableTarget(
            name: "fuzz-image",
            dependencies: [.product(name: "VitrineImage", package: vitrine), .product(name: "VitrineCodecs", package: vitrine)]),
        .executableTarget(
            name: "fuzz-decoder-reply",
            dependencies: [
                .product(name: "VitrineDecoderHelper", package: vitrine), .product(name: "VitrineImage", package: vitrine),
                .product(name: "VitrineSystem", package: vitrine),
            ]),
        .executableTarget(
            name: "fuzz-video-report",
            dependencies: [
                .product(name: "VitrineDecoderHelper", package: vitrine), .product(name: "VitrineVideo", package: vitrine),
                .product(name: "VitrineSystem", package: vitrine),
            ]),
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "VitrineCore", package: vitrine),
                .product(name: "VitrineProtocol", package: vitrine),
                .product(name: "VitrineRender", package: vitrine),
                .product(name: "VitrineRolling", package: vitrine),
            ]),
    ]
)
