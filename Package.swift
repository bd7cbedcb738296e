// swift-tools-version:6.1
import Foundation
import PackageDescription

/// Release builds of the modules a frame's logic runs through are optimized with the
/// profile of a daemon at work (`perf/frame.profdata`, made by `perf/frame-profile.py`,
/// LLVM's IR-level profile-guided optimization): a frame runs with cold caches, so the
/// compiler's knowing which paths it takes, to lay them out straight and together, shows
/// in its CPU time. Without the file they are built as without a profile, and so they are
/// by compilers older than the Swift 6.3 (LLVM 21) that wrote it, whose LLVM may not read
/// its format.
let profileUse: [String] = {
    #if compiler(>=6.3)
        let profile = Context.packageDirectory + "/perf/frame.profdata"
        return FileManager.default.fileExists(atPath: profile) ? ["-Xfrontend", "-ir-profile-use=" + profile] : []
    #else
        return []
    #endif
}()

/// Release settings of the modules every frame runs through: no dynamic exclusivity checks
/// (they cost a runtime call per class property access, per glyph and per pixel row), and
/// the profile unless `profiled` is false.
func frameRelease(profiled: Bool = true) -> SwiftSetting {
    .unsafeFlags(["-enforce-exclusivity=unchecked"] + (profiled ? profileUse : []), .when(configuration: .release))
}

/// The modules whose code draws (raster kernels, text, content renderers): they are ~1000×
/// slower unoptimized, so they are built with `-O` in debug builds too; otherwise
/// golden-image tests would crawl.
let optimizedInDebug = SwiftSetting.unsafeFlags(["-O", "-enforce-exclusivity=unchecked"], .when(configuration: .debug))

let package = Package(
    name: "Vitrine",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "VitrineCore", targets: ["VitrineCore"]),
        .library(name: "VitrineFormat", targets: ["VitrineFormat"]),
        .library(name: "VitrineSystem", targets: ["VitrineSystem"]),
        .library(name: "VitrineRaster", targets: ["VitrineRaster"]),
        .library(name: "VitrineImage", targets: ["VitrineImage"]),
        .library(name: "VitrineCodecs", targets: ["VitrineCodecs"]),
        .library(name: "VitrineDecoderHelper", targets: ["VitrineDecoderHelper"]),
        .library(name: "VitrineVideo", targets: ["VitrineVideo"]),
        .library(name: "VitrineVideoLayer", targets: ["VitrineVideoLayer"]),
        .library(name: "VitrineProtocol", targets: ["VitrineProtocol"]),
        .library(name: "VitrineSignage", targets: ["VitrineSignage"]),
        .library(name: "VitrineRender", targets: ["VitrineRender"]),
        .library(name: "VitrineOutput", targets: ["VitrineOutput"]),
        .library(name: "VitrineRolling", targets: ["VitrineRolling"]),
        .library(name: "VitrineDaemon", targets: ["VitrineDaemon"]),
        .library(name: "VitrinePlayLog", targets: ["VitrinePlayLog"]),
        .executable(name: "vitrined", targets: ["vitrined"]),
        .executable(name: "vitrine-decoder", targets: ["vitrine-decoder"]),
        .library(name: "VitrineText", targets: ["VitrineText"]),
        .executable(name: "vitrine-bench", targets: ["vitrine-bench"]),
        .library(name: "VitrineConfig", targets: ["VitrineConfig"]),
        .library(name: "VitrineInput", targets: ["VitrineInput"]),
        .library(name: "VitrineKeyboard", targets: ["VitrineKeyboard"]),
        .library(name: "VitrineWayland", targets: ["VitrineWayland"]),
        .library(name: "VitrineWindowHost", targets: ["VitrineWindowHost"]),
        .library(name: "VitrineXWayland", targets: ["VitrineXWayland"]),
        .library(name: "VitrineOutputSet", targets: ["VitrineOutputSet"]),
        .library(name: "VitrineSceneHost", targets: ["VitrineSceneHost"]),
        .executable(name: "vitrinectl", targets: ["vitrinectl"]),
        .executable(name: "vitrine-fleet", targets: ["vitrine-fleet"]),
        // The module the Wayland Conformance Test Suite loads: `wlcs libVitrineWLCS.so` (.ci/wlcs).
        .library(name: "VitrineWLCS", type: .dynamic, targets: ["VitrineWLCS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.7.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        .target(
            name: "VitrineCore",
            swiftSettings: [frameRelease()]),
        // Number formatting (ICU's, through FoundationInternationalization): rolling numbers' and text templates'.
        .target(name: "VitrineFormat", swiftSettings: [frameRelease()]),
        .testTarget(name: "VitrineFormatTests", dependencies: ["VitrineFormat", "VitrineCore"]),
        // The one layer over file descriptors and errno: SystemError, with swift-system's FileDescriptor and Errno.
        .target(
            name: "VitrineSystem", dependencies: ["CLinuxEvents", "CSandbox", "CUDev", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: [frameRelease()]),
        .testTarget(name: "VitrineSystemTests", dependencies: ["VitrineSystem"]),
        // Device events (DRM hotplug) through a udev monitor on the event loop (libudev-dev's header).
        .target(name: "CUDev", dependencies: ["CLazyLibrary"]),
        // The C libraries that only some daemons use (libinput, libudev, libseat, xkbcommon,
        // xcb, libwayland) are not linked: the modules over them (CUDev, CLibInput, CLibSeat,
        // CXKBCommon, CX11, CWaylandClient, CWaylandServer, CWaylandShared) bind each function
        // when it is first called, and a feature opens its libraries where it starts
        // (VitrineSystem's FeatureLibraries). Their headers are in /usr/include (the -dev
        // packages), and no pkg-config flags are needed.
        .target(name: "CLazyLibrary"),
        .target(
            name: "VitrineRaster", dependencies: ["VitrineCore", "CPNG"],
            // Not profiled: the daemon's workload draws only fills and glyphs, and the
            // kernels it never ran (images, gradients) would be compiled as cold code.
            swiftSettings: [optimizedInDebug, frameRelease(profiled: false)]),
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        // Image files' decoders (JPEG, WebP, GIF, SVG; PNG is the raster module's), between
        // the raster module and the renderer. Built with -O in debug too: they convert pixels.
        .target(
            name: "VitrineImage", dependencies: ["VitrineCore", "VitrineRaster", "VitrineSystem"],
            swiftSettings: [optimizedInDebug, frameRelease(profiled: false)]),
        // The image formats' libraries: linked by the decoder helper (and tests, benchmarks,
        // fuzzing), never by the daemon.
        .target(
            name: "VitrineCodecs", dependencies: ["VitrineImage", "VitrineCore", "VitrineRaster", "VitrineSystem", "CJPEG", "CWebP", "CGIF", "CRSVG"],
            swiftSettings: [optimizedInDebug, frameRelease(profiled: false)]),
        // The decoder helper process: the daemon's client, the helper's service, their messages.
        .target(
            name: "VitrineDecoderHelper",
            dependencies: [
                "VitrineImage", "VitrineRaster", "VitrineCore", "VitrineSystem", "VitrineJSON", "VitrineProtocol", "VitrineVideo", "VitrineYUV",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "VitrineDecoderHelperTests",
            dependencies: [
                "VitrineDecoderHelper", "VitrineImage", "VitrineCodecs", "VitrineRaster", "VitrineSystem", "VitrineTestSupport", "CSandbox", "vitrine-decoder",
                "VitrineVideo",
            ]),
        .executableTarget(
            name: "vitrine-decoder",
            dependencies: ["VitrineDecoderHelper", "VitrineCodecs", "VitrineImage", "VitrineProtocol", "VitrineSystem", "VitrineVideo", "VitrineGStreamer"]),
        .testTarget(
            name: "VitrineImageTests",
            dependencies: ["VitrineImage", "VitrineCodecs", "VitrineRaster", "VitrineRender", "VitrineCore", "VitrineTestSupport", "CJPEG", "CWebP", "CGIF"],
            exclude: ["References"]),
        .systemLibrary(
            name: "CJPEG", path: "Sources/CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(
            name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]),
        // giflib has no pkg-config file on every distribution: its header is in /usr/include.
        .systemLibrary(name: "CGIF", path: "Sources/CGIF", providers: [.apt(["libgif-dev"])]),
        // libyuv has no pkg-config file: its headers are in /usr/include.
        .systemLibrary(name: "CYUV", path: "Sources/CYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(
            name: "CRSVG", path: "Sources/CRSVG", pkgConfig: "librsvg-2.0",
            providers: [.apt(["librsvg2-dev"])]),
        // Video: players paced by their reader's clock over a decoder (VitrineVideo), the
        // decoder helper's GStreamer decoder (VitrineGStreamer: the helper links it, the
        // daemon does not), and the `video` layer kind drawn by the renderer.
        .target(name: "VitrineVideo", dependencies: ["VitrineCore", "VitrineRaster", "VitrineYUV"], swiftSettings: [frameRelease(profiled: false)]),
        // YUV frames drawn into an output, converted on the way (no BGRA pass of their own).
        .target(name: "VitrineYUV", dependencies: ["VitrineCore", "VitrineRaster", "CYUV"], swiftSettings: [optimizedInDebug, frameRelease(profiled: false)]),
        .testTarget(name: "VitrineYUVTests", dependencies: ["VitrineYUV", "VitrineCore", "VitrineRaster", "VitrineTestSupport"]),
        .target(
            name: "VitrineGStreamer", dependencies: ["VitrineVideo", "VitrineRaster", "VitrineYUV", "VitrineSystem", "CGStreamer"],
            swiftSettings: [frameRelease(profiled: false)]),
        .target(
            name: "VitrineVideoLayer", dependencies: ["VitrineVideo", "VitrineYUV", "VitrineCore", "VitrineRaster", "VitrineRender", "VitrineSystem"],
            swiftSettings: [frameRelease(profiled: false)]),
        .testTarget(
            name: "VitrineVideoTests",
            dependencies: [
                "VitrineVideo", "VitrineGStreamer", "VitrineVideoLayer", "VitrineDecoderHelper", "VitrineCore", "VitrineRaster", "VitrineRender",
                "VitrineTestSupport", "vitrine-decoder",
            ]),
        // (gstreamer-video-1.0's flags include gstreamer-1.0's and GLib's; the app library
        // shares its headers' directory)
        .systemLibrary(
            name: "CGStreamer", path: "Sources/CGStreamer", pkgConfig: "gstreamer-video-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(
            name: "CPixman", path: "Sources/CPixman", pkgConfig: "pixman-1",
            providers: [.apt(["libpixman-1-dev"])]),
        // The reference for paths and strokes: in the tests and the benchmarks only.
        .systemLibrary(
            name: "CCairo", path: "Sources/CCairo", pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]),
        .target(
            name: "VitrineText",
            dependencies: [
                "VitrineCore", "VitrineFormat", "VitrineJSON", "VitrineRaster", "CFreeType", "CHarfBuzz", "CFontconfig", "CFriBidi", "CUnibreak", "CThai",
            ],
            swiftSettings: [optimizedInDebug, frameRelease()]),
        .systemLibrary(
            name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(
            name: "CHarfBuzz", path: "Sources/CHarfBuzz", pkgConfig: "harfbuzz",
            providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(
            name: "CFontconfig", path: "Sources/CFontconfig", pkgConfig: "fontconfig",
            providers: [.apt(["libfontconfig-dev"])]),
        .systemLibrary(
            name: "CFriBidi", path: "Sources/CFriBidi", pkgConfig: "fribidi",
            providers: [.apt(["libfribidi-dev"])]),
        .systemLibrary(
            name: "CUnibreak", path: "Sources/CUnibreak", pkgConfig: "libunibreak",
            providers: [.apt(["libunibreak-dev"])]),
        .systemLibrary(
            name: "CThai", path: "Sources/CThai", pkgConfig: "libthai",
            providers: [.apt(["libthai-dev"])]),
        // The reference for text layout: in the tests and the benchmarks only.
        .systemLibrary(
            name: "CPangoCairo", path: "Sources/CPangoCairo", pkgConfig: "pangocairo",
            providers: [.apt(["libpango1.0-dev"])]),
        .target(
            name: "VitrineDaemon",
            dependencies: [
                "VitrineCore", "VitrineConfig", "VitrineProtocol", "VitrineRender", "VitrineOutput", "VitrineRaster", "VitrineText", "VitrineRolling",
                "VitrineSystem", "VitrineInput", "VitrineImage", "VitrineDecoderHelper", "VitrineVideo", "VitrineVideoLayer", "VitrineMetrics",
                "VitrineWayland",
                "VitrineWindowHost",
                "VitrineXWayland",
                "VitrineKeyboard",
                "VitrineOutputSet",
                "VitrineSignage",
                "VitrineSceneHost",
                "VitrineRemote",
                "VitrineIdentify",
                "VitrinePlayLog",
                "CLinuxEvents",
                .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: [frameRelease()]),
        // The identification screen shown where no scene is (host name, addresses, fleet id,
        // socket, output, a QR code of the device's id), and the facts it shows.
        .target(name: "VitrineIdentify", dependencies: ["VitrineCore", "VitrineSystem", "CQREncode", "CSystemdID"]),
        // libqrencode (libqrencode-dev's header), bound when the first code is made.
        .target(name: "CQREncode", dependencies: ["CLazyLibrary"]),
        // libsystemd's sd-id128 (libsystemd-dev's header), bound when the device's id is read.
        .target(name: "CSystemdID", dependencies: ["CLazyLibrary"]),
        // Proof of play: the items shown, recorded in append-only JSON Lines files in the
        // state directory by workers, and read back for playlog.query.
        .target(
            name: "VitrinePlayLog",
            dependencies: [
                "VitrineSystem", "VitrineJSON", "VitrineProtocol", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "VitrinePlayLogTests",
            dependencies: [
                "VitrinePlayLog", "VitrineProtocol", "VitrineSystem", "VitrineTestSupport", "playlog-probe", .product(name: "Logging", package: "swift-log"),
            ]),
        // A process that records items into a play log until it is killed, for the tests.
        .executableTarget(
            name: "playlog-probe", dependencies: ["VitrinePlayLog", "VitrineSystem", "VitrineProtocol", .product(name: "Logging", package: "swift-log")],
            path: "Tests/PlayLogProbe"),
        // Fleets, in the bridge process `vitrine-fleet`: the MQTT connection (libmosquitto on
        // the bridge's event loop) and the connections to the daemon's Unix sockets.
        .target(
            name: "VitrineFleet",
            dependencies: [
                "VitrineSystem", "CMosquitto", "CLinuxEvents", "VitrineRaster", "CJPEG", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "VitrineFleetTests",
            dependencies: [
                "VitrineFleet", "VitrineMetrics", "VitrineSystem", "VitrineTestSupport", "VitrineRaster", .product(name: "Logging", package: "swift-log"),
            ]),
        // The metrics' HTTP endpoint: the daemon's on its Unix socket, the bridge's on TCP.
        .target(
            name: "VitrineMetrics",
            dependencies: [
                "VitrineSystem", "CLinuxEvents", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"), .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        // Log lines on standard error as journald keeps them, for the executables.
        .target(name: "VitrineLog", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // The fleet bridge: MQTT <-> the daemon's socket, and the metrics' TCP port; the
        // one process of Vitrine's with an IP socket.
        .executableTarget(
            name: "vitrine-fleet",
            dependencies: [
                "VitrineFleet", "VitrineMetrics", "VitrineConfig", "VitrineProtocol", "VitrineSystem", "VitrineJSON", "VitrineLog", "VitrineRaster",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        .systemLibrary(
            name: "CMosquitto", path: "Sources/CMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        .testTarget(
            name: "VitrineDaemonTests",
            dependencies: [
                "VitrineDaemon", "VitrineCore", "VitrineProtocol", "VitrineRender", "VitrineOutput", "VitrineOutputSet", "VitrineRaster", "VitrineTestSupport",
                "VitrineDaemonTestSupport", "vitrined", "vitrine-decoder", "vitrine-fleet", "CX11", "CSandbox", "VitrineFleet", "VitrineCodecs",
                "VitrinePlayLog",
                "VitrineSignage", "VitrineConfig",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["References"]),
        // What the tests that start the real `vitrined` share (the test targets that use it
        // depend on `vitrined` too, so that it is built beside them): the daemon on its
        // socket, and Wayland clients of its compositor, with wayland-glue's descriptions.
        .target(
            name: "VitrineDaemonTestSupport",
            dependencies: ["VitrineTestSupport", "VitrineProtocol", "VitrineRaster", "VitrineOutput", "CWaylandClient", "WaylandDescription", "CX11"],
            path: "Tests/VitrineDaemonTestSupport", plugins: ["WaylandGlue"]),
        .executableTarget(
            name: "vitrined",
            dependencies: [
                "VitrineDaemon", "VitrineDecoderHelper", "VitrineConfig", "VitrineCore", "VitrineProtocol", "VitrineRender", "VitrineOutput",
                "VitrineOutputSet", "VitrineRaster", "VitrineText", "VitrineRolling", "VitrineSystem", "VitrineLog",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // `vitrine-bench protocol` starts the `vitrined` built beside it, so it is built first.
        .executableTarget(
            name: "vitrinectl",
            dependencies: ["VitrineJSON", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "VitrinectlTests", dependencies: ["vitrinectl", "vitrined", "vitrine-decoder", "VitrineProtocol", "VitrineJSON"]),
        .executableTarget(
            name: "vitrine-bench",
            dependencies: [
                "VitrineCore", "VitrineRaster", "VitrineRender", "VitrineOutput", "VitrineOutputSet", "VitrineProtocol", "CPixman", "VitrineDaemon",
                "VitrineSystem", "VitrineKeyboard", "VitrineConfig",
                "VitrineImage", "VitrineCodecs", "CJPEG", "CairoReference", "VitrineText", "CPangoCairo", "CCairo", "vitrined", "vitrine-decoder",
                "vitrine-fleet", "CWaylandClient",
                "WaylandDescription",
                .product(name: "Logging", package: "swift-log"),
            ], plugins: ["WaylandGlue"]),
        .testTarget(
            name: "VitrineCoreTests",
            dependencies: [
                "VitrineCore", "VitrineTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(name: "VitrineRasterTests", dependencies: ["VitrineRaster", "VitrineTestSupport", "CairoReference"], exclude: ["Golden"]),
        // cairo drawing on a Surface: the reference for paths and strokes in the raster tests and `vitrine-bench raster`.
        .target(name: "CairoReference", dependencies: ["VitrineRaster", "CCairo"], path: "Tests/CairoReference"),
        .target(
            name: "VitrineSignage",
            dependencies: ["VitrineProtocol", "VitrineSystem"]),
        .testTarget(name: "VitrineSignageTests", dependencies: ["VitrineSignage", "VitrineProtocol", "VitrineSystem"]),
        .target(
            name: "VitrineProtocol",
            dependencies: ["VitrineCore", "VitrineJSON", "VitrineRolling", "VitrineSystem"]),
        // JSON text without Foundation: the protocol's, and `vitrinectl`'s, which starts in a few ms.
        .target(name: "VitrineJSON"),
        .testTarget(name: "VitrineJSONTests", dependencies: ["VitrineJSON", "VitrineTestSupport"]),
        .target(
            name: "VitrineOutput",
            dependencies: [
                "VitrineCore", "VitrineRaster", "VitrineSystem", "CLibDRM", "CLinuxConsole", "CX11", "CWaylandClient", "WaylandDescription",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: [frameRelease()], plugins: ["WaylandGlue"]),
        .systemLibrary(
            name: "CLibDRM", path: "Sources/CLibDRM", pkgConfig: "libdrm",
            providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CLinuxConsole", path: "Sources/CLinuxConsole"),
        // The Wayland window (`--backend wayland`): wayland-client (libwayland-dev), and
        // xdg-shell's interfaces described in Swift at build time by wayland-glue from
        // wayland-protocols' XML.
        .target(name: "CWaylandClient", dependencies: ["CLazyLibrary", "CWaylandShared"]),
        // What libwayland-client and libwayland-server both define, bound once.
        .target(name: "CWaylandShared", dependencies: ["CLazyLibrary"]),
        .executableTarget(name: "wayland-glue", path: "Sources/wayland-glue"),
        // What wayland-glue's descriptions are made of, and their C tables, for the client and the server.
        .target(name: "WaylandDescription"),
        // The Wayland server (`[compositor]`): clients' windows as `surface` layers;
        // xdg-shell's interfaces described by wayland-glue as for the window backend, and the
        // core protocol's requests and errors named by it.
        .target(
            name: "VitrineWayland",
            dependencies: [
                "VitrineCore", "VitrineSystem", "VitrineRaster", "VitrineRender", "CWaylandServer", "WaylandDescription",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [frameRelease(profiled: false)], plugins: ["WaylandGlue"]),
        // X11 programs through Xwayland: the display's sockets, Xwayland started on demand,
        // and the X window manager (xcb, bound lazily through CX11) whose windows are
        // hosted windows as xdg toplevels are. Below the window host, beside nothing: the
        // window host decides where they go.
        .target(
            name: "VitrineXWayland",
            dependencies: ["VitrineWayland", "VitrineSystem", "CX11", .product(name: "Logging", package: "swift-log")]),
        // X11 programs through the real daemon and the Xwayland it starts.
        .testTarget(
            name: "VitrineXWaylandTests",
            dependencies: ["VitrineXWayland", "VitrineDaemonTestSupport", "VitrineProtocol", "VitrineRaster", "CX11", "vitrined", "vitrine-decoder"],
            exclude: ["References"]),
        // The window policy: which surface layer shows which client's window (rules,
        // surface.assign), the windows' lives, the seat's input for them, launched clients.
        .target(
            name: "VitrineWindowHost",
            dependencies: [
                "VitrineCore", "VitrineConfig", "VitrineProtocol", "VitrineSystem", "VitrineInput", "VitrineWayland", "VitrineXWayland",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "VitrineWindowHostTests",
            dependencies: [
                "VitrineWindowHost", "VitrineCore", "VitrineConfig", "VitrineProtocol", "VitrineSystem", "VitrineInput", "VitrineWayland",
                "VitrineDaemonTestSupport", "vitrined", "vitrine-decoder", .product(name: "Logging", package: "swift-log"),
            ]),
        // The scene's commands: transactions, rolls followed to their end, scene events.
        .target(
            name: "VitrineSceneHost",
            dependencies: [
                "VitrineCore", "VitrineJSON", "VitrineProtocol", "VitrineRolling", "VitrineSystem",
            ],
            swiftSettings: [frameRelease()]),
        .testTarget(
            name: "VitrineSceneHostTests",
            dependencies: ["VitrineSceneHost", "VitrineCore", "VitrineJSON", "VitrineProtocol", "VitrineRolling", "VitrineRender", "VitrineSystem"]),
        // TVs over HDMI-CEC: the kernel's CEC API (/dev/cecN, linux/cec.h), messages, and the
        // TV behind an output driven as a playback device; below the output set.
        .systemLibrary(name: "CLinuxCEC", path: "Sources/CLinuxCEC"),
        .target(
            name: "VitrineCEC",
            dependencies: [
                "CLinuxCEC", "VitrineSystem", .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(name: "VitrineCECTests", dependencies: ["VitrineCEC", "VitrineProtocol", "VitrineJSON"]),
        // The screens: heads, hotplug, frame pacing, the frame pipeline, power (and TVs over
        // CEC), presentation feedback.
        .target(
            name: "VitrineOutputSet",
            dependencies: [
                "VitrineCore", "VitrineConfig", "VitrineJSON", "VitrineProtocol", "VitrineSystem", "VitrineOutput", "VitrineRaster", "VitrineRender",
                "VitrineWayland", "VitrineCEC", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [frameRelease()]),
        .testTarget(
            name: "VitrineOutputSetTests",
            dependencies: [
                "VitrineOutputSet", "VitrineCore", "VitrineConfig", "VitrineJSON", "VitrineProtocol", "VitrineSystem", "VitrineOutput", "VitrineRaster",
                "VitrineRender", "VitrineTestSupport", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "VitrineWaylandTests",
            dependencies: [
                "VitrineWayland", "VitrineCore", "VitrineRaster", "VitrineProtocol", "VitrineOutput", "VitrineTestSupport", "VitrineDaemonTestSupport",
                "vitrined", "vitrine-decoder",
                "CWaylandClient", "WaylandDescription",
            ],
            exclude: ["References"], plugins: ["WaylandGlue"]),
        // The WLCS integration module: the daemon in WLCS's process, driven by its hooks
        // (VitrineWLCS), and the C table WLCS loads, built where WLCS's headers are (Debian's
        // wlcs package) and calling the Swift side.
        .target(
            name: "VitrineWLCS",
            dependencies: [
                "CVitrineWLCS", "VitrineDaemon", "VitrineWayland", "VitrineOutput", "VitrineRaster", "VitrineSystem", "VitrineJSON", "VitrineLog",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "CVitrineWLCS", linkerSettings: [.linkedLibrary("wayland-client")]),
        .target(name: "CWaylandServer", dependencies: ["CLazyLibrary", "CWaylandShared"]),
        .plugin(name: "WaylandGlue", capability: .buildTool(), dependencies: ["wayland-glue"]),
        // The X11 window (`--backend x11`): xcb with MIT-SHM, and xkbcommon-x11 for the
        // server's keymap (libxcb1-dev, libxcb-shm0-dev, libxkbcommon-x11-dev).
        .target(name: "CX11", dependencies: ["CLazyLibrary", "CXKBCommon"]),
        .systemLibrary(name: "CLinuxEvents", path: "Sources/CLinuxEvents"),
        .systemLibrary(name: "CSandbox", path: "Sources/CSandbox"),
        .testTarget(
            name: "VitrineOutputTests",
            dependencies: ["VitrineOutput", "VitrineRaster", "VitrineSystem", .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "VitrineRolling", dependencies: ["VitrineCore", "VitrineFormat"], swiftSettings: [frameRelease()]),
        // Input devices (libinput, xkbcommon) and what touches mean (gestures): below the daemon.
        .target(
            name: "VitrineInput",
            dependencies: [
                "VitrineCore", "VitrineSystem", "CLinuxEvents", "CLibInput", "CXKBCommon", "CLibSeat",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [frameRelease()]),
        // The screen keyboard: layouts from xkeyboard-config, keys, touches, its layers.
        .target(name: "VitrineKeyboard", dependencies: ["VitrineCore", "VitrineSystem", "VitrineInput"]),
        .testTarget(name: "VitrineKeyboardTests", dependencies: ["VitrineKeyboard", "VitrineCore"]),
        .testTarget(
            name: "VitrineInputTests",
            dependencies: ["VitrineInput", "VitrineCore", "VitrineSystem", "VitrineTestSupport", .product(name: "Logging", package: "swift-log")]),
        // Input's libraries, bound when first used (headers: libinput-dev, libxkbcommon-dev, libseat-dev).
        .target(name: "CLibInput", dependencies: ["CLazyLibrary", "CUDev"]),
        .target(name: "CXKBCommon", dependencies: ["CLazyLibrary"]),
        .target(name: "CLibSeat", dependencies: ["CLazyLibrary"]),
        // Remote view: the VNC server (Neat VNC on the daemon's loop, its encoders on aml's
        // workers). Its libraries (libneatvnc-dev, libaml-dev; libpixman-1-dev for the
        // damage's regions) are bound when a listener starts, like input's.
        .target(
            name: "VitrineRemote",
            dependencies: ["VitrineSystem", "VitrineRaster", "CNeatVNC", "CPAM", .product(name: "Logging", package: "swift-log")]),
        .target(name: "CNeatVNC", dependencies: ["CLazyLibrary"], cSettings: [.unsafeFlags(["-I/usr/include/pixman-1"])]),
        .target(name: "CPAM", dependencies: ["CLazyLibrary"]),
        .testTarget(name: "VitrineRollingTests", dependencies: ["VitrineRolling", "VitrineFormat"]),
        .target(
            name: "VitrineRender", dependencies: ["VitrineCore", "VitrineRaster", "VitrineImage", "VitrineText", "VitrineRolling"],
            swiftSettings: [optimizedInDebug, frameRelease()]),
        // What several test targets share: image fixtures, golden images, child processes,
        // a Mosquitto broker, an HTTP client, a log recorder.
        .target(
            name: "VitrineTestSupport",
            dependencies: ["VitrineRaster", "VitrineJSON", "VitrineSystem", "CJPEG", "CWebP", "CGIF", .product(name: "Logging", package: "swift-log")],
            path: "Tests/VitrineTestSupport"),
        .testTarget(
            name: "VitrineRenderTests",
            dependencies: ["VitrineRender", "VitrineCodecs", "VitrineProtocol", "VitrineTestSupport"],
            exclude: ["References", "Scenes"]),
        .testTarget(name: "VitrineProtocolTests", dependencies: ["VitrineProtocol", "VitrineTestSupport"]),
        .testTarget(
            name: "VitrineTextTests", dependencies: ["VitrineText", "VitrineRaster", "VitrineTestSupport", "CPangoCairo", "CCairo"],
            exclude: ["Fonts", "References"]),
        .target(
            name: "VitrineConfig",
            dependencies: [
                "VitrineCore", "VitrineProtocol", "VitrineSignage", "VitrineRolling", "VitrineInput", "VitrineKeyboard", "VitrineSystem", "VitrineRemote",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        .testTarget(name: "VitrineConfigTests", dependencies: ["VitrineConfig", "VitrineJSON", "VitrineRemote", "VitrineSignage", "VitrineProtocol"]),
    ]
)
