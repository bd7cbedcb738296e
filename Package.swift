// swift-tools-version:6.1
import PackageDescription

/// The rasterizer's kernels are ~1000× slower unoptimized, so they are built with `-O` in
/// debug builds too; otherwise golden-image tests would crawl.
let optimizedInDebug: [SwiftSetting] = [
    .unsafeFlags(["-O", "-enforce-exclusivity=unchecked"], .when(configuration: .debug)),
]

let package = Package(
    name: "Vitrine",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "VitrineCore", targets: ["VitrineCore"]),
        .library(name: "VitrineRaster", targets: ["VitrineRaster"]),
        .library(name: "VitrineProtocol", targets: ["VitrineProtocol"]),
        .library(name: "VitrineRender", targets: ["VitrineRender"]),
        .library(name: "VitrineOutput", targets: ["VitrineOutput"]),
        .library(name: "VitrineDaemon", targets: ["VitrineDaemon"]),
        .executable(name: "vitrined", targets: ["vitrined"]),
        .library(name: "VitrineText", targets: ["VitrineText"]),
        .executable(name: "vitrine-bench", targets: ["vitrine-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        .target(
            name: "VitrineCore",
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        .target(
            name: "VitrineRaster", dependencies: ["VitrineCore", "CPNG"],
            swiftSettings: optimizedInDebug),
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CPixman", path: "Sources/CPixman", pkgConfig: "pixman-1",
            providers: [.apt(["libpixman-1-dev"])]),
        .target(
            name: "VitrineText", dependencies: ["VitrineCore", "CFreeType", "CHarfBuzz", "CFontconfig"],
            swiftSettings: optimizedInDebug),
        .systemLibrary(
            name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(
            name: "CHarfBuzz", path: "Sources/CHarfBuzz", pkgConfig: "harfbuzz",
            providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(
            name: "CFontconfig", path: "Sources/CFontconfig", pkgConfig: "fontconfig",
            providers: [.apt(["libfontconfig-dev"])]),
        .target(
            name: "VitrineDaemon",
            dependencies: [
                "VitrineCore", "VitrineProtocol", "VitrineRender", "VitrineOutput", "VitrineRaster", "VitrineText",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "VitrineDaemonTests",
            dependencies: [
                "VitrineDaemon", "VitrineProtocol", "VitrineOutput", "VitrineRaster", "vitrined",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["References"]),
        .executableTarget(
            name: "vitrined",
            dependencies: [
                "VitrineDaemon", "VitrineCore", "VitrineProtocol", "VitrineRender", "VitrineOutput", "VitrineRaster",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "vitrine-bench",
            dependencies: ["VitrineCore", "VitrineRaster", "VitrineRender", "VitrineOutput", "VitrineProtocol", "CPixman"]),
        .testTarget(
            name: "VitrineCoreTests",
            dependencies: [
                "VitrineCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(name: "VitrineRasterTests", dependencies: ["VitrineRaster"], exclude: ["Golden"]),
        .target(name: "VitrineProtocol", dependencies: ["VitrineCore"]),
        .target(name: "VitrineOutput", dependencies: ["VitrineCore", "VitrineRaster"]),
        .target(
            name: "VitrineRender", dependencies: ["VitrineCore", "VitrineRaster", "VitrineText", "VitrineOutput"],
            swiftSettings: optimizedInDebug),
        .testTarget(
            name: "VitrineRenderTests",
            dependencies: ["VitrineRender", "VitrineProtocol", "VitrineOutput"],
            exclude: ["References", "Scenes"]),
        .testTarget(name: "VitrineProtocolTests", dependencies: ["VitrineProtocol"]),
        .testTarget(name: "VitrineTextTests", dependencies: ["VitrineText"]),
    ]
)
