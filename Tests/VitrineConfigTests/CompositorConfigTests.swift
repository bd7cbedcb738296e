import Testing
@testable import VitrineConfig

@Suite struct CompositorConfigTests {
    @Test func rulesMatchByAppIDAndTitle() throws {
        let rules = try parse(ConfigurationTests.everyKeyChanged).compositor.rules
        #expect(rules.first { $0.matches(appID: "chromium", title: "Anything") }?.layer == "browser")
        #expect(rules.first { $0.matches(appID: "mpv", title: "Player") }?.layer == "video")
        #expect(rules.first { $0.matches(appID: "mpv", title: "Other") } == nil)
        #expect(Configuration.restartKeys.contains("compositor.socket"))
    }

    @Test func mistakesAreNamed() throws {
        let path = try #require(failure("[compositor]\nsocket = \"../wayland-0\""))
        #expect(path.description.contains("compositor.socket") && path.description.contains("a file name"), "\(path)")
        let noLayer = try #require(failure("[compositor]\n[[compositor.rules]]\napp_id = \"chromium\""))
        #expect(noLayer.description.contains("compositor.rules[0]") && noLayer.description.contains("needs the layer"), "\(noLayer)")
        let nothing = try #require(failure("[compositor]\n[[compositor.rules]]\nlayer = \"browser\""))
        #expect(nothing.description.contains("needs an app_id, a title or an instance"), "\(nothing)")
        let typo = try #require(failure("[compositor]\n[[compositor.rules]]\nappid = \"x\"\nlayer = \"b\""))
        #expect(typo.description.contains("did you mean 'app_id'"), "\(typo)")
    }

    @Test func thePingTimeoutIsOffOrHalfASecondToTenMinutes() throws {
        #expect(Configuration.default.compositor.pingTimeout == 5)
        #expect(try parse("[compositor]\nping_timeout = 0").compositor.pingTimeout == 0)
        #expect(try parse("[compositor]\nping_timeout = 0.5").compositor.pingTimeout == 0.5)
        #expect(try parse("[compositor]\nping_timeout = 600").compositor.pingTimeout == 600)
        for bad in ["0.2", "601", "-1", "\"5s\""] {
            let error = try #require(failure("[compositor]\nping_timeout = \(bad)"), "\(bad)")
            #expect(error.key == "compositor.ping_timeout" && error.message.contains("0.5…600, or 0 to send no pings"), "\(bad): \(error)")
        }
    }

    @Test func rulesAndThePingTimeoutChangeOnReloadAndTheSocketNeedsARestart() throws {
        let running = try parse("[compositor]\nenabled = true\n[[compositor.rules]]\napp_id = \"a\"\nlayer = \"x\"")
        let changed = try parse("[compositor]\nenabled = true\nsocket = \"wl\"\nping_timeout = 1\n[[compositor.rules]]\napp_id = \"b\"\nlayer = \"y\"")
        #expect(changed.keysNeedingRestart(comparedWith: running) == ["compositor.socket"])
        #expect(!Configuration.restartKeys.contains("compositor.rules") && !Configuration.restartKeys.contains("compositor.ping_timeout"))
    }

    @Test func theObjectLimitsAreBoundedAndNeedARestart() throws {
        #expect(Configuration.default.compositor.maxObjectsPerClient == 10_000)
        #expect(Configuration.default.compositor.maxShmPoolsPerClient == 256)
        let set = try parse("[compositor]\nmax_objects_per_client = 100\nmax_shm_pools_per_client = 10000")
        #expect(set.compositor.maxObjectsPerClient == 100 && set.compositor.maxShmPoolsPerClient == 10_000)
        for bad in ["99", "1000001", "2.5", "\"many\""] {
            let error = try #require(failure("[compositor]\nmax_objects_per_client = \(bad)"), "\(bad)")
            #expect(error.key == "compositor.max_objects_per_client" && error.message.contains("100…1000000"), "\(bad): \(error)")
        }
        for bad in ["3", "10001", "-1"] {
            let error = try #require(failure("[compositor]\nmax_shm_pools_per_client = \(bad)"), "\(bad)")
            #expect(error.key == "compositor.max_shm_pools_per_client" && error.message.contains("4…10000"), "\(bad): \(error)")
        }
        #expect(set.keysNeedingRestart(comparedWith: .default) == ["compositor.max_objects_per_client", "compositor.max_shm_pools_per_client"])
    }

    @Test func xwaylandIsOffOnDemandOrAlwaysAndNeedsARestart() throws {
        #expect(Configuration.default.compositor.xwayland == .off)
        #expect(try parse("[compositor]\nxwayland = \"on-demand\"").compositor.xwayland == .onDemand)
        let always = try parse("[compositor]\nxwayland = \"always\"")
        #expect(always.compositor.xwayland == .always)
        #expect(always.keysNeedingRestart(comparedWith: .default) == ["compositor.xwayland"])
        for bad in ["\"yes\"", "true", "\"On-Demand\""] {
            let error = try #require(failure("[compositor]\nxwayland = \(bad)"), "\(bad)")
            #expect(error.key == "compositor.xwayland" && error.message.contains("\"on-demand\""), "\(bad): \(error)")
        }
    }

    @Test func inputMethodClientsAreLaunchedAllOrNoneAndChangeOnReload() throws {
        #expect(Configuration.default.compositor.inputMethodClients == .launched)
        let all = try parse("[compositor]\ninput_method_clients = \"all\"")
        #expect(all.compositor.inputMethodClients == .all)
        #expect(all.keysNeedingRestart(comparedWith: .default).isEmpty)
        #expect(try parse("[compositor]\ninput_method_clients = \"none\"").compositor.inputMethodClients == .none)
        for bad in ["\"yes\"", "true", "\"Launched\""] {
            let error = try #require(failure("[compositor]\ninput_method_clients = \(bad)"), "\(bad)")
            #expect(error.key == "compositor.input_method_clients" && error.message.contains("\"launched\""), "\(bad): \(error)")
        }
    }

    @Test func screencopyClientsAreNoneByDefaultLaunchedOrAllAndChangeOnReload() throws {
        #expect(Configuration.default.compositor.screencopyClients == .none)
        let launched = try parse("[compositor]\nscreencopy_clients = \"launched\"")
        #expect(launched.compositor.screencopyClients == .launched && launched.compositor.inputMethodClients == .launched)
        #expect(launched.keysNeedingRestart(comparedWith: .default).isEmpty)
        #expect(try parse("[compositor]\nscreencopy_clients = \"all\"").compositor.screencopyClients == .all)
        let error = try #require(failure("[compositor]\nscreencopy_clients = \"grim\""))
        #expect(error.key == "compositor.screencopy_clients" && error.message.contains("\"none\""), "\(error)")
    }

    /// An X11 window's WM_CLASS is its app id (the class) and its instance; a rule naming an
    /// instance never matches a Wayland window, which has none.
    @Test func rulesMatchX11WindowsByClassAndInstance() throws {
        let rules = try parse(
            "[compositor]\n[[compositor.rules]]\ninstance = \"xterm\"\nlayer = \"term\"\n[[compositor.rules]]\napp_id = \"XEyes\"\nlayer = \"eyes\""
        ).compositor.rules
        #expect(rules.first { $0.matches(appID: "XTerm", title: "sh", instance: "xterm") }?.layer == "term")
        #expect(rules.first { $0.matches(appID: "XTerm", title: "sh", instance: "login") } == nil)
        #expect(rules.first { $0.matches(appID: "XEyes", title: "xeyes", instance: "xeyes") }?.layer == "eyes")
        #expect(rules.first { $0.matches(appID: "xterm", title: "sh") } == nil)
    }
}
