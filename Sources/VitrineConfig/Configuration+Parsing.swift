import VitrineRemote
import FoundationEssentials
import Glibc
import TOMLKit
import VitrineCore
import VitrineInput
import VitrineRolling
import VitrineProtocol
import VitrineSystem

extension Configuration {
    /// The largest configuration file read.
    public static let fileLimit = 4 << 20

    /// Reads and checks the configuration file at `path`: a regular file of at most
    /// `fileLimit` bytes.
    ///
    /// - Parameters:
    ///   - path: The TOML file, e.g. "/etc/vitrine/vitrine.toml".
    ///   - kinds: Layer kinds beyond "layer" and "gradient" that the initial scene may use;
    ///     when every layer's kind is known the scene is also tried on a scratch scene, so
    ///     that bad property values and animations are refused here.
    /// - Throws: `ConfigError` naming the file, line and key of the first mistake.
    public static func load(contentsOf path: String, kinds: [LayerKind] = []) throws(ConfigError) -> Configuration {
        let data: Data
        do { data = Data(try SafeFile.read(path, limit: fileLimit).bytes) } catch {
            throw ConfigError(file: path, message: "cannot read the configuration: \(error.reason)")
        }
        return try Configuration(contents: data, source: path, kinds: kinds)
    }

    /// Parses and checks a configuration file's bytes, as `load(contentsOf:kinds:)` reads
    /// them: they must be UTF-8 text.
    ///
    /// - Parameters:
    ///   - contents: The file's bytes.
    ///   - source: The file's path, as for `init(toml:source:kinds:)`.
    ///   - kinds: Extra layer kinds, as for `load(contentsOf:kinds:)`.
    public init(contents: Data, source: String, kinds: [LayerKind] = []) throws(ConfigError) {
        guard let text = String(validating: contents, as: UTF8.self) else {
            let offset = Self.firstInvalidUTF8(contents)
            throw ConfigError(
                file: source,
                message: "cannot read the configuration: the file is not UTF-8 text (the byte at offset \(offset) is not valid UTF-8; is this a binary file?)")
        }
        try self.init(toml: text, source: source, kinds: kinds)
    }

    /// The offset of the first byte that does not continue valid UTF-8.
    static func firstInvalidUTF8(_ data: Data) -> Int {
        var decoder = UTF8()
        var iterator = data.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput, .error: return offset
            }
        }
    }

    /// Parses and checks a configuration.
    ///
    /// - Parameters:
    ///   - toml: The file's text.
    ///   - source: The file's path, used in errors and to resolve a relative `scene.file`.
    ///   - kinds: Extra layer kinds, as for `load(contentsOf:kinds:)`.
    public init(toml: String, source: String, kinds: [LayerKind] = []) throws(ConfigError) {
        if let mistake = TOMLGuard.firstMistake(in: toml) {
            throw ConfigError(file: source, line: mistake.line, column: mistake.column, message: mistake.message)
        }
        let root: [String: TOMLNode]
        do {
            root = TOMLNode.entries(try TOMLTable(string: toml))
        } catch let e as TOMLParseError {
            throw ConfigError(file: source, line: e.source.begin.line, column: e.source.begin.column, message: e.description)
        } catch {
            throw ConfigError(file: source, message: "not valid TOML: \(error)")
        }
        let top = TableReader(path: "", entries: root, context: ParseContext(file: source, locator: SourceLocator(toml)))
        try Self.refuseUnknownSections(top)
        self.init()
        output = try Output(reading: top.table("output"))
        socket = try Socket(reading: top.table("socket"))
        animation = try Animations(reading: top.table("animation"))
        rollingNumber = try RollingNumber(reading: top.table("rolling_number"))
        fonts = try Fonts(reading: top.table("fonts"))
        limits = try Limits(reading: top.table("limits"))
        content = try Content(reading: top.table("content"))
        logging = try Logging(reading: top.table("logging"))
        state = try State(reading: top.table("state"))
        input = try Input(reading: top.table("input"))
        fleet = try Fleet(reading: top.table("fleet"))
        metrics = try Metrics(reading: top.table("metrics"))
        playLog = try PlayLog(reading: top.table("playlog"))
        remote = try RemoteSettings(reading: top.table("remote"))
        compositor = try Compositor(reading: top.table("compositor"))
        launcher = try Launcher(reading: top.table("launcher"))
        osk = try ScreenKeyboard(reading: top.table("osk"))
        scene = try InitialScene(reading: top.table("scene"), source: source)
        try scene.tryOut(kinds: kinds, size: output.headlessSize, reader: top.table("scene"))
        outputs = try OutputEntry.readAll(top, source: source)
        clients = try ClientEntry.readAll(top)
        watches = try Watch.readAll(top, clients: clients)
        wall = try Wall(reading: top.table("wall"))
        signage = try Signage(reading: top, source: source, roots: content.roots)
        try checkWall(top)
        if scene.content != nil, let first = outputs.first, first.scene != nil, first.root.isEmpty || first.root == "root" {
            throw top.context.error(
                "outputs[0].scene", "the first output shows [scene] already; give its scene in [scene] or in its [[outputs]] table, not both")
        }
    }

    static let sections: [String: [String]] = [
        "output": Output.keys, "socket": Socket.keys, "animation": Animations.keys,
        "rolling_number": RollingNumber.keys, "fonts": Fonts.keys, "limits": Limits.keys, "content": Content.keys,
        "logging": Logging.keys, "scene": InitialScene.keys, "state": State.keys, "input": Input.keys,
        "fleet": Fleet.keys, "wall": Wall.keys, "metrics": Metrics.keys, "compositor": Compositor.keys, "launcher": Launcher.keys,
        "osk": ScreenKeyboard.keys, "remote": RemoteSettings.keys, "playlog": PlayLog.keys,
    ]

    private static func refuseUnknownSections(_ top: TableReader) throws(ConfigError) {
        let names = sections.keys.sorted()
        for name in top.keysInFileOrder where sections[name] == nil && !["outputs", "clients", "watch", "scenes", "playlists", "schedules"].contains(name) {
            if top.entries[name]?.table != nil {
                let all = TableReader.list(names.map { "[\($0)]" })
                let guess =
                    TableReader.closest(to: name, in: names)
                    ?? names.first(where: { sections[$0]!.contains(name) }).map { "\($0).\(name)" }
                throw top.error(
                    name,
                    guess.map { "unknown section; did you mean [\($0)]? The sections are \(all)." }
                        ?? "unknown section; the sections are \(all).")
            }
            let homes = names.filter { sections[$0]!.contains(name) }.map { "[\($0)]" }
            if !homes.isEmpty {
                throw top.error(name, "keys belong in a section; '\(name)' goes under \(TableReader.list(homes, or: true))")
            }
            throw top.error(name, "unknown key; settings go in the sections \(TableReader.list(names.map { "[\($0)]" }))")
        }
    }
}

/// Why a file could not be read, in words for an error message.
let colourForm = "a colour: \"#rrggbb\", \"#rrggbbaa\", \"#rgb\", a CSS name such as \"black\", or [r, g, b] / [r, g, b, a] in 0…1"

/// A colour in the scene vocabulary (`Value(json:as: .color)`).
func readColour(_ node: TOMLNode) -> Color? {
    guard let json = node.json, case .color(let c)? = try? Value(json: json, as: .color, at: "") else { return nil }
    return c
}

extension Configuration.Output {
    static let keys = [
        "backend", "device", "connector", "mode", "rotation", "background", "buffers",
        "headless_size", "headless_rate", "snapshot_dir", "hotplug_grace",
    ]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        backend = try r.choice("backend", backend)
        device = try r.string("device", device, expected: "a device path such as \"/dev/dri/card0\", or \"\" for the first") {
            $0.isEmpty || $0.hasPrefix("/")
        }
        connector = try r.string("connector", connector)
        mode = try r.value("mode", mode, expected: "\"preferred\", \"WxH\" or \"WxH@Hz\" such as \"1920x1080@60\"") {
            $0.string.flatMap(Mode.init(parsing:))
        }
        rotation = try r.value("rotation", rotation, expected: "0, 90, 180 or 270") {
            if case .integer(let i) = $0 { Rotation(rawValue: i) } else { nil }
        }
        background = try r.value("background", background, expected: colourForm, readColour)
        buffers = try r.integer("buffers", buffers, in: 2...3, expected: "2 or 3")
        headlessSize = try r.value("headless_size", headlessSize, expected: "\"WxH\" with each side 1…16384, such as \"1280x800\"") {
            $0.string.flatMap(PixelSize.init(parsing:))
        }
        headlessRate = try r.number("headless_rate", headlessRate, expected: "a rate in Hz, 1…1000") { (1...1000).contains($0) }
        snapshotDirectory = try r.absolutePath("snapshot_dir", snapshotDirectory)
        hotplugGrace = try r.number("hotplug_grace", hotplugGrace, expected: "seconds, 0…604800 (a week)") { (0...604_800).contains($0) }
    }
}

extension Configuration.Socket {
    static let keys = ["path", "mode", "group", "screenshot_dir"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        path = try r.string("path", path, expected: "an absolute path of at most 107 bytes, such as \"/run/vitrine/vitrine.sock\"") {
            $0.hasPrefix("/") && $0.utf8.count <= 107 && !$0.hasSuffix("/")
        }
        let written = r.context.locator.writtenValue(of: r.key("mode"))
        mode = try r.value("mode", mode, expected: "permission bits in octal, \"0660\" or 0o660, at most 0777") { node in
            switch node {
            case .string(let s):
                guard (1...4).contains(s.count), let bits = UInt16(s, radix: 8), bits <= 0o777 else { return nil }
                return bits
            case .integer(let i):
                guard (0...0o777).contains(i), written.map({ $0.hasPrefix("0o") }) ?? true else { return nil }
                return UInt16(i)
            default: return nil
            }
        }
        group = try r.string("group", group)
        screenshotDirectory = try r.absolutePath("screenshot_dir", screenshotDirectory)
    }
}

extension Configuration.Animations {
    static let keys = ["implicit_duration", "implicit_timing", "spring"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        implicitDuration = try r.number("implicit_duration", implicitDuration, expected: "seconds, 0…3600") { (0...3600).contains($0) }
        let names = TimingFunction.named.keys.sorted().map { "\"\($0)\"" }
        implicitTiming = try r.value(
            "implicit_timing", implicitTiming,
            expected: "one of \(TableReader.list(names, or: true)), or [x1, y1, x2, y2] with x1 and x2 in 0…1"
        ) { node in
            node.json.flatMap { try? AnimationDescription.timingFunction($0) }
        }
        spring = try Configuration.SpringDefaults(reading: r.table("spring"))
    }
}

extension Configuration.SpringDefaults {
    static let keys = ["duration", "speed", "damping", "initial_velocity", "mass", "stiffness"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        self.init()
        duration = try r.number("duration", duration, expected: "seconds, 0…3600 (0: until the spring settles)") { (0...3600).contains($0) }
        speed = try r.number("speed", speed, expected: "a number > 0 and ≤ 100") { $0 > 0 && $0 <= 100 }
        damping = try r.number("damping", damping, expected: "a number ≥ 0") { $0 >= 0 && $0 <= 1e9 }
        initialVelocity = try r.number("initial_velocity", initialVelocity, expected: "a number within ±1e6") { abs($0) <= 1e6 }
        mass = try r.number("mass", mass, expected: "a number > 0 and ≤ 1e6") { $0 > 0 && $0 <= 1e6 }
        stiffness = try r.number("stiffness", stiffness, expected: "a number > 0 and ≤ 1e9") { $0 > 0 && $0 <= 1e9 }
    }
}

extension Configuration.RollingNumber {
    static let keys = ["animation_type", "direction", "character_spacing", "font", "font_size"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        animationType = try r.choice("animation_type", animationType)
        direction = try r.choice("direction", direction)
        characterSpacing = try r.number("character_spacing", characterSpacing, expected: "a multiple of the glyph width, 0.1…10") {
            (0.1...10).contains($0)
        }
        font = try r.string("font", font, expected: "a font family name such as \"DejaVu Sans\", or \"\" for [fonts] default_family") { _ in true }
        fontSize = try r.number("font_size", fontSize, expected: "a size in pixels > 0 and ≤ 4096") { $0 > 0 && $0 <= 4096 }
    }
}

extension Configuration.Fonts {
    static let keys = ["default_family", "directories"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        defaultFamily = try r.string("default_family", defaultFamily, expected: "a font family name such as \"DejaVu Sans\"") { !$0.isEmpty }
        directories = try r.value("directories", directories, expected: "an array of absolute directory paths, such as [\"/opt/kiosk/fonts\"]") { node in
            guard let items = node.array else { return nil }
            let paths = items.compactMap(\.string).filter { $0.hasPrefix("/") }
            return paths.count == items.count ? paths : nil
        }
    }
}

extension Configuration.State {
    static let keys = ["directory", "journal"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        directory = try r.absolutePath("directory", directory, allowEmpty: true)
        journal = try r.boolean("journal", journal)
    }
}

extension Configuration.Limits {
    static let keys = [
        "layers", "line_bytes", "clients", "subscriptions_per_client", "animations_per_layer", "outbound_bytes", "memory_mb", "scene_mb", "idle_seconds",
    ]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        layers = try r.integer("layers", layers, in: 1...1_000_000)
        lineBytes = try r.integer("line_bytes", lineBytes, in: 1024...1 << 30)
        clients = try r.integer("clients", clients, in: 1...10_000)
        subscriptionsPerClient = try r.integer("subscriptions_per_client", subscriptionsPerClient, in: 1...10_000)
        animationsPerLayer = try r.integer("animations_per_layer", animationsPerLayer, in: 1...100_000)
        outboundBytes = try r.integer("outbound_bytes", outboundBytes, in: 65536...1 << 30)
        memoryMB = try r.integer("memory_mb", memoryMB, in: 16...65536)
        sceneMB = try r.integer("scene_mb", sceneMB, in: 1...4096)
        idleSeconds = try r.integer("idle_seconds", idleSeconds, in: 0...86_400)
    }
}

extension Configuration.Content {
    static let keys = ["roots", "network_video"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        roots = try r.value("roots", roots, expected: "an array of absolute directory paths, such as [\"/srv/signage\"]") { node in
            guard let items = node.array else { return nil }
            let paths = items.compactMap(\.string).filter { $0.hasPrefix("/") }
            return paths.count == items.count ? paths : nil
        }
        networkVideo = try r.boolean("network_video", networkVideo)
    }
}

extension Configuration.Input {
    static let keys = [
        "enabled", "seat", "xkb_rules", "xkb_model", "xkb_layout", "xkb_variant", "xkb_options",
        "repeat_delay_ms", "repeat_rate", "calibration", "vt_switching", "tap_slop", "long_press_seconds",
        "cursor", "cursor_hide_after", "idle_after",
    ]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        self.init()
        enabled = try r.boolean("enabled", enabled)
        seat = try r.string("seat", seat, expected: "a seat name such as \"seat0\" (letters, digits, - and _)") { name in
            !name.isEmpty && name.utf8.count <= 64
                && name.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-_".unicodeScalars.contains($0))
                }
        }
        let names = "xkb names (letters, digits and ,:()+-_), such as \"de\", \"nodeadkeys\" or \"ctrl:nocaps,compose:ralt\", or \"\" for the system's default"
        let xkbName = { (text: String) in
            text.utf8.count <= 256
                && text.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || ",:()+-_".unicodeScalars.contains($0))
                }
        }
        keymap.rules = try r.string("xkb_rules", keymap.rules, expected: names, where: xkbName)
        keymap.model = try r.string("xkb_model", keymap.model, expected: names, where: xkbName)
        keymap.layout = try r.string("xkb_layout", keymap.layout, expected: names, where: xkbName)
        keymap.variant = try r.string("xkb_variant", keymap.variant, expected: names, where: xkbName)
        keymap.options = try r.string("xkb_options", keymap.options, expected: names, where: xkbName)
        repeatDelayMilliseconds = try r.integer("repeat_delay_ms", repeatDelayMilliseconds, in: 0...10_000)
        repeatRate = try r.integer("repeat_rate", repeatRate, in: 0...1000, expected: "repeats a second, 0…1000 (0: keys do not repeat)")
        calibration = try r.value(
            "calibration", calibration, expected: "six numbers [a, b, c, d, e, f] within ±100 (libinput's calibration matrix), or [] for the device's own"
        ) { node in
            guard let items = node.array else { return nil }
            let numbers = items.compactMap(\.number).filter { $0.isFinite && abs($0) <= 100 }
            guard numbers.count == items.count, numbers.count == 6 || numbers.isEmpty else { return [Double]??.none }
            return numbers.isEmpty ? [Double]?.none : numbers
        }
        vtSwitching = try r.boolean("vt_switching", vtSwitching)
        tapSlop = try r.number("tap_slop", tapSlop, expected: "pixels, 0…1000") { (0...1000).contains($0) }
        longPressSeconds = try r.number("long_press_seconds", longPressSeconds, expected: "seconds, 0.05…60") { (0.05...60).contains($0) }
        cursor = try r.choice("cursor", cursor)
        cursorHideAfter = try r.number("cursor_hide_after", cursorHideAfter, expected: "seconds, 0.1…3600") { (0.1...3600).contains($0) }
        idleAfter = try r.number("idle_after", idleAfter, expected: "seconds, 0 (never idle) or 1…86400") { $0 == 0 || (1...86_400).contains($0) }
    }
}

extension Configuration.Logging {
    static let keys = ["level"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        level = try r.choice("level", level)
    }
}
