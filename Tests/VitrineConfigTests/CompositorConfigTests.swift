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
        #expect(nothing.description.contains("needs an app_id or a title"), "\(nothing)")
        let typo = try #require(failure("[compositor]\n[[compositor.rules]]\nappid = \"x\"\nlayer = \"b\""))
        #expect(typo.description.contains("did you mean 'app_id'"), "\(typo)")
    }
}
