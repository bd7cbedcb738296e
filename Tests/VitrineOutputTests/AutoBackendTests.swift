import SystemPackage
import Testing
import VitrineOutput

/// `--backend auto` takes DRM, else fbdev, else headless, and says why.
@Suite struct AutoBackendTests {
    struct Refused: Error, CustomStringConvertible { let description: String }

    @Test func drmFirst() throws {
        var lines: [String] = []
        let output = try AutoBackend.choose(
            cardsPresent: false,
            drm: { try HeadlessOutput(width: 10, height: 10) }, fbdev: { throw Refused(description: "unused") },
            headless: { throw Refused(description: "unused") }, log: { lines.append($0) })
        #expect(output.mode.width == 10)
        #expect(lines == ["auto: using drm (headless 10x10@60)"])
    }

    @Test func fbdevWhenNoCard() throws {
        var lines: [String] = []
        _ = try AutoBackend.choose(
            cardsPresent: false,
            drm: { throw DisplayError.noDevice(tried: []) }, fbdev: { try HeadlessOutput(width: 20, height: 10) },
            headless: { throw Refused(description: "unused") }, log: { lines.append($0) })
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("auto: drm not used: no display device"))
        #expect(lines[1] == "auto: using fbdev (headless 20x10@60)")
    }

    @Test func headlessLast() throws {
        var lines: [String] = []
        let output = try AutoBackend.choose(
            cardsPresent: false,
            drm: { throw DisplayError.permissionDenied(path: "/dev/dri/card0", group: "video") },
            fbdev: { throw DisplayError.unsupportedDepth(path: "/dev/fb0", bitsPerPixel: 16) },
            headless: { try HeadlessOutput(width: 30, height: 10) }, log: { lines.append($0) })
        #expect(output.name == "headless")
        #expect(lines.count == 3)
        #expect(lines[0].contains("usermod -aG video vitrine"))
        #expect(lines[2] == "auto: no screen could be opened; using headless 30x10@60")
    }

    /// A card that cannot be used (a desktop holds it) does not send us to its fbdev
    /// emulation.
    @Test func noFbdevBehindACardsBack() throws {
        var lines: [String] = []
        var fbdevTried = false
        let output = try AutoBackend.choose(
            cardsPresent: true,
            drm: { throw DisplayError.masterHeld(path: "/dev/dri/card0", errno: .resourceBusy) },
            fbdev: {
                fbdevTried = true; return try HeadlessOutput(width: 20, height: 10)
            },
            headless: { try HeadlessOutput(width: 30, height: 10) }, log: { lines.append($0) })
        #expect(!fbdevTried)
        #expect(output.mode.width == 30)
        #expect(lines.count == 3 && lines[1].hasPrefix("auto: fbdev not tried"))
    }
}
