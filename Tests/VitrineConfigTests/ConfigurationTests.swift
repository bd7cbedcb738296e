import Foundation
import Testing
import VitrineCore
@testable import VitrineConfig
import VitrineJSON
import VitrineRemote

@Suite struct ConfigurationTests {
    static let shippedFile = repositoryRoot.appendingPathComponent("config/vitrine.toml").path

    @Test func shippedFileIsTheDefaults() throws {
        let shipped = try Configuration.load(contentsOf: Self.shippedFile)
        #expect(shipped == Configuration.default)
        #expect(try parse("") == Configuration.default)
    }

    @Test func shippedFileWritesEveryKey() throws {
        let text = try String(contentsOfFile: Self.shippedFile, encoding: .utf8)
        let locator = SourceLocator(text)
        for (section, keys) in Configuration.sections where section != "scene" {
            for key in keys where key != "spring" {
                #expect(locator.writtenValue(of: "\(section).\(key)") != nil, "config/vitrine.toml lacks \(section).\(key)")
            }
        }
        for key in Configuration.SpringDefaults.keys {
            #expect(locator.writtenValue(of: "animation.spring.\(key)") != nil, "config/vitrine.toml lacks animation.spring.\(key)")
        }
    }

    static let everyKeyChanged = """
        [output]
        backend = "headless"
        device = "/dev/dri/card1"
        connector = "HDMI-A-2"
        mode = "1920x1080@59.94"
        rotation = 90
        background = "#102030"
        buffers = 3
        headless_size = "640X480"
        headless_rate = 30
        snapshot_dir = "/srv/snapshots"
        hotplug_grace = 30

        [socket]
        path = "/tmp/vitrine-test.sock"
        mode = 0o600
        group = "kiosk"
        screenshot_dir = "/srv/screenshots"

        [animation]
        implicit_duration = 0.5
        implicit_timing = [0.1, 0.2, 0.3, 1.4]

        [animation.spring]
        duration = 2
        speed = 1
        damping = 10.5
        initial_velocity = -2
        mass = 2
        stiffness = 300

        [rolling_number]
        animation_type = "onlyChangedNumbers"
        direction = "down"
        character_spacing = 0.8
        font = "Inter"
        font_size = 48.5

        [fonts]
        default_family = "Noto Sans"
        directories = ["/opt/kiosk/fonts", "/usr/local/share/fonts"]

        [limits]
        layers = 500
        line_bytes = 65536
        clients = 8
        subscriptions_per_client = 4
        animations_per_layer = 50
        outbound_bytes = 1000000
        idle_seconds = 30
        memory_mb = 64
        scene_mb = 8

        [content]
        roots = ["/srv/signage"]
        network_video = true

        [logging]
        level = "debug"

        [state]
        directory = "/srv/vitrine-state"
        journal = false

        [input]
        enabled = false
        seat = "seat1"
        xkb_rules = "evdev"
        xkb_model = "pc104"
        xkb_layout = "de,us"
        xkb_variant = "nodeadkeys,"
        xkb_options = "ctrl:nocaps,grp:alt_shift_toggle"
        repeat_delay_ms = 250
        repeat_rate = 40
        calibration = [0, 1, 0, -1, 0, 1]
        vt_switching = false
        tap_slop = 20.5
        long_press_seconds = 1
        cursor = "hidden"
        cursor_hide_after = 10
        idle_after = 120

        [[outputs]]
        connector = "DP-1"
        mode = "1080x1920@30"
        rotation = 270
        root = "menu"
        power_off = "23:00"
        power_on = "06:15"

        [fleet]
        enabled = true
        host = "broker.example"
        port = 8883
        device = "lobby-1"
        groups = ["lobby"]
        client_id = "screen-17"
        username = "lobby-1"
        password_file = "/etc/vitrine/mqtt.pass"
        ca_file = "/etc/vitrine/ca.crt"
        cert_file = "/etc/vitrine/lobby-1.crt"
        key_file = "/etc/vitrine/lobby-1.key"
        keepalive = 10
        reconnect_max_seconds = 5
        thumbnail_every = 60
        thumbnail_width = 640
        thumbnail_height = 360
        thumbnail_format = "png"
        thumbnail_max_bytes = 200000
        screenshot_interval = 2.5

        [wall]
        canvas = [3840, 1080]
        viewport = [1920, 0, 1920, 1080]
        [remote]
        vnc = "0.0.0.0:5901"
        output = "HDMI-A-1"
        view_only = true
        max_rate = 12
        tls_certificate = "/etc/vitrine/vnc.crt"
        tls_key = "/etc/vitrine/vnc.key"
        password_file = "/etc/vitrine/vnc.passwords"

        [metrics]
        enabled = true
        address = "::1"
        port = 9100
        socket = "/run/vitrine/metrics.sock"
        connections = 2

        [playlog]
        enabled = false
        max_mb = 8
        keep_days = 400

        [compositor]
        enabled = true
        socket = "wayland-kiosk"
        ping_timeout = 2.5
        max_objects_per_client = 5000
        max_shm_pools_per_client = 64
        xwayland = "on-demand"
        input_method_clients = "all"
        screencopy_clients = "launched"
        [[compositor.rules]]
        app_id = "chromium"
        layer = "browser"
        [[compositor.rules]]
        title = "Player"
        layer = "video"

        [launcher]
        allow_commands = true

        [osk]
        enabled = true
        layouts = ["de", "numeric"]
        avoid = "resize"
        background = "#01020380"
        key_color = "#04050680"
        special_key_color = "#07080980"
        pressed_color = "#0a0b0c80"
        label_color = "#0d0e0f80"
        font = "DejaVu Sans Mono"
        corner_radius = 2
        key_spacing = 4
        height = 300
        duration = 0.5
        curve = [0.1, 0.2, 0.3, 0.9]

        [[clients]]
        name = "player"
        command = ["mpv", "/srv/loop.mp4"]
        env = { LANG = "C.UTF-8" }
        directory = "/srv"
        restart = "always"
        restart_max_seconds = 10
        restarts_per_minute = 3
        stop_seconds = 1
        start = false
        restart_unresponsive_after = 30

        [[watch]]
        layer = "video"
        must_change_every = 5
        restart = "player"
        reload = true
        commands = [{ cmd = "layer.set", layer = "sorry", properties = { hidden = false } }]
        resume_commands = [{ cmd = "layer.set", layer = "sorry", properties = { hidden = true } }]
        """

    @Test func everyKeyReadsANonDefaultValue() throws {
        var expected = Configuration()
        expected.output.backend = .headless
        expected.output.device = "/dev/dri/card1"
        expected.output.connector = "HDMI-A-2"
        expected.output.mode = .fixed(PixelSize(width: 1920, height: 1080), refreshRate: 59.94)
        expected.output.rotation = .quarter
        expected.output.background = Color(red: 0x10 / 255, green: 0x20 / 255, blue: 0x30 / 255)
        expected.output.buffers = 3
        expected.output.headlessSize = PixelSize(width: 640, height: 480)
        expected.output.headlessRate = 30
        expected.output.snapshotDirectory = "/srv/snapshots"
        expected.output.hotplugGrace = 30
        expected.socket.path = "/tmp/vitrine-test.sock"
        expected.socket.mode = 0o600
        expected.socket.group = "kiosk"
        expected.socket.screenshotDirectory = "/srv/screenshots"
        expected.animation.implicitDuration = 0.5
        expected.animation.implicitTiming = try TimingFunction(controlPoints: 0.1, 0.2, 0.3, 1.4)
        expected.animation.spring.duration = 2
        expected.animation.spring.speed = 1
        expected.animation.spring.damping = 10.5
        expected.animation.spring.initialVelocity = -2
        expected.animation.spring.mass = 2
        expected.animation.spring.stiffness = 300
        expected.rollingNumber.animationType = .onlyChangedNumbers
        expected.rollingNumber.direction = .down
        expected.rollingNumber.characterSpacing = 0.8
        expected.rollingNumber.font = "Inter"
        expected.rollingNumber.fontSize = 48.5
        expected.fonts.defaultFamily = "Noto Sans"
        expected.fonts.directories = ["/opt/kiosk/fonts", "/usr/local/share/fonts"]
        expected.limits.layers = 500
        expected.limits.lineBytes = 65536
        expected.limits.clients = 8
        expected.limits.subscriptionsPerClient = 4
        expected.limits.animationsPerLayer = 50
        expected.limits.outboundBytes = 1_000_000
        expected.limits.idleSeconds = 30
        expected.limits.memoryMB = 64
        expected.limits.sceneMB = 8
        expected.content.roots = ["/srv/signage"]
        expected.content.networkVideo = true
        expected.logging.level = .debug
        expected.state.directory = "/srv/vitrine-state"
        expected.state.journal = false
        expected.input.enabled = false
        expected.input.seat = "seat1"
        expected.input.keymap = .init(rules: "evdev", model: "pc104", layout: "de,us", variant: "nodeadkeys,", options: "ctrl:nocaps,grp:alt_shift_toggle")
        expected.input.repeatDelayMilliseconds = 250
        expected.input.repeatRate = 40
        expected.input.calibration = [0, 1, 0, -1, 0, 1]
        expected.input.vtSwitching = false
        expected.input.tapSlop = 20.5
        expected.input.longPressSeconds = 1
        (expected.input.cursor, expected.input.cursorHideAfter, expected.input.idleAfter) = (.hidden, 10, 120)
        var entry = Configuration.OutputEntry(connector: "DP-1")
        entry.mode = .fixed(PixelSize(width: 1080, height: 1920), refreshRate: 30)
        entry.rotation = .threeQuarters
        entry.root = "menu"
        entry.schedule = Configuration.PowerSchedule(off: 23 * 60, on: 6 * 60 + 15)
        expected.outputs = [entry]
        expected.fleet.enabled = true
        (expected.fleet.host, expected.fleet.port, expected.fleet.device, expected.fleet.groups) = ("broker.example", 8883, "lobby-1", ["lobby"])
        (expected.fleet.clientID, expected.fleet.username) = ("screen-17", "lobby-1")
        expected.fleet.passwordFile = "/etc/vitrine/mqtt.pass"
        (expected.fleet.caFile, expected.fleet.certFile, expected.fleet.keyFile) = (
            "/etc/vitrine/ca.crt", "/etc/vitrine/lobby-1.crt", "/etc/vitrine/lobby-1.key"
        )
        (expected.fleet.keepalive, expected.fleet.reconnectMaxSeconds) = (10, 5)
        expected.wall.canvas = PixelSize(width: 3840, height: 1080)
        expected.wall.viewport = Configuration.Viewport(x: 1920, y: 0, width: 1920, height: 1080)
        (expected.metrics.enabled, expected.metrics.address, expected.metrics.port) = (true, "::1", 9100)
        (expected.metrics.socket, expected.metrics.connections) = ("/run/vitrine/metrics.sock", 2)
        (expected.playLog.enabled, expected.playLog.maxMB, expected.playLog.keepDays) = (false, 8, 400)
        (expected.compositor.enabled, expected.compositor.socket, expected.compositor.pingTimeout) = (true, "wayland-kiosk", 2.5)
        (expected.compositor.maxObjectsPerClient, expected.compositor.maxShmPoolsPerClient) = (5000, 64)
        expected.compositor.xwayland = .onDemand
        expected.compositor.inputMethodClients = .all
        expected.compositor.screencopyClients = .launched
        expected.compositor.rules = [.init(appID: "chromium", layer: "browser"), .init(title: "Player", layer: "video")]
        expected.launcher.allowCommands = true
        var vnc = RemoteSettings.Listener(address: .tcp(host: "0.0.0.0", port: 5901))
        (vnc.output, vnc.viewOnly, vnc.certificate) = ("HDMI-A-1", true, "/etc/vitrine/vnc.crt")
        (vnc.key, vnc.passwordFile, vnc.maxRate) = ("/etc/vitrine/vnc.key", "/etc/vitrine/vnc.passwords", 12)
        expected.remote.listeners = [vnc]
        (expected.osk.enabled, expected.osk.layouts, expected.osk.avoid) = (true, ["de", "numeric"], .resize)
        let grey = { (n: Double) in Color(red: n / 255, green: (n + 1) / 255, blue: (n + 2) / 255, alpha: 128 / 255) }
        (expected.osk.theme.background, expected.osk.theme.key, expected.osk.theme.specialKey) = (grey(1), grey(4), grey(7))
        (expected.osk.theme.pressedKey, expected.osk.theme.label, expected.osk.theme.font) = (grey(10), grey(13), "DejaVu Sans Mono")
        (expected.osk.theme.cornerRadius, expected.osk.theme.spacing, expected.osk.theme.height) = (2, 4, 300)
        (expected.osk.theme.duration, expected.osk.theme.timing) = (0.5, try TimingFunction(controlPoints: 0.1, 0.2, 0.3, 0.9))
        var player = Configuration.ClientEntry(name: "player", command: ["mpv", "/srv/loop.mp4"])
        (player.program.environment, player.program.directory, player.program.restart) = (["LANG": "C.UTF-8"], "/srv", .always)
        (player.program.restartMaxSeconds, player.program.restartsPerMinute, player.program.stopSeconds) = (10, 3, 1)
        player.program.restartUnresponsiveAfter = 30
        player.start = false
        expected.clients = [player]
        (expected.fleet.thumbnailEvery, expected.fleet.thumbnailWidth, expected.fleet.thumbnailHeight) = (60, 640, 360)
        (expected.fleet.thumbnailFormat, expected.fleet.thumbnailMaxBytes, expected.fleet.screenshotInterval) = ("png", 200000, 2.5)
        var watch = Configuration.Watch(target: .layer("video"), mustChangeEvery: 5)
        (watch.restart, watch.reload) = ("player", true)
        let sorry = { (hidden: Bool) -> JSON in
            .object(["cmd": .string("layer.set"), "layer": .string("sorry"), "properties": .object(["hidden": .bool(hidden)])])
        }
        (watch.commands, watch.resumeCommands) = ([sorry(false)], [sorry(true)])
        expected.watches = [watch]

        let parsed = try parse(Self.everyKeyChanged)
        #expect(parsed == expected)
        let changed = leaves(parsed), defaults = leaves(Configuration.default)
        #expect(changed.count > 35)
        // (password and password_file exclude each other: the text sets the file; FleetConfigTests reads password;
        // SignageConfigTests reads [scenes.NAME], [[playlists]] and [[schedules]])
        for (path, value) in changed where !path.hasPrefix("scene") && !path.hasPrefix("signage") && path != "fleet.password" {
            #expect(value != defaults[path], "\(path) is not changed by the test text")
        }
    }

    @Test func alternativeForms() throws {
        let config = try parse(
            """
            output.mode = "800x600"
            output.background = [1, 0, 0, 0.5]
            socket.mode = "600"
            animation.implicit_timing = "easeOut"
            animation.spring = { damping = 0 }
            output.buffers = 3.0
            """)
        #expect(config.output.mode == .fixed(PixelSize(width: 800, height: 600), refreshRate: nil))
        #expect(config.output.background == Color(red: 1, green: 0, blue: 0, alpha: 0.5))
        #expect(config.socket.mode == 0o600)
        #expect(config.animation.implicitTiming == .easeOut)
        #expect(config.animation.spring.damping == 0)
        #expect(config.output.buffers == 3)
        #expect(Configuration.Output.Mode(parsing: "1920x1080@59.94")?.description == "1920x1080@59.94")
        #expect(Configuration.Output.Mode(parsing: "1920x1080@60")?.description == "1920x1080@60")
    }

    @Test func sceneModelDefaultsFollowTheConfiguration() throws {
        let config = try parse(Self.everyKeyChanged)
        let model = config.sceneConfiguration
        #expect(model.implicitDuration == 0.5)
        #expect(model.implicitTimingFunction == config.animation.implicitTiming)
        #expect(model.maximumLayers == 500)
        #expect(model.maximumAnimationsPerLayer == 50)
        let spring = try config.animation.spring.spring()
        #expect(spring.mass == 2 && spring.stiffness == 300 && spring.damping == 10.5 && spring.initialVelocity == -2)
    }
}
