import Testing
import VitrineOutput

/// Choosing connector, mode and CRTC on a card described by hand, and the errors when
/// the choice is impossible.
@Suite struct KMSSelectionTests {
    static let hdmiModes = [
        KMSMode(width: 1920, height: 1080, refreshRate: 60, preferred: true),
        KMSMode(width: 1920, height: 1080, refreshRate: 50),
        KMSMode(width: 1280, height: 720, refreshRate: 60),
        KMSMode(width: 1280, height: 720, refreshRate: 50),
    ]

    /// card0: DP-1 (no screen), HDMI-A-1 (a 1080p screen), Virtual-1 (unknown state).
    /// Two CRTCs; DP's encoder can use both, HDMI's only the second.
    func card(hdmiEncoderCRTC: UInt32 = 0) -> KMSCard {
        KMSCard(
            path: "/dev/dri/card0", crtcIDs: [40, 41],
            encoders: [KMSEncoder(id: 30, crtcID: 0, possibleCRTCs: 0b11), KMSEncoder(id: 31, crtcID: hdmiEncoderCRTC, possibleCRTCs: 0b10)],
            connectors: [
                KMSConnector(id: 50, name: "DP-1", status: .disconnected, modes: [], encoderIDs: [30]),
                KMSConnector(id: 51, name: "HDMI-A-1", status: .connected, modes: Self.hdmiModes, encoderID: hdmiEncoderCRTC == 0 ? 0 : 31, encoderIDs: [31]),
                KMSConnector(id: 52, name: "Virtual-1", status: .unknown, modes: [], encoderIDs: [30]),
            ])
    }

    @Test func firstConnectedConnectorAndPreferredMode() throws {
        let s = try KMSSelection.choose(on: card(), connectorName: nil, mode: .preferred)
        #expect(s.connector.name == "HDMI-A-1")
        #expect(s.mode.outputMode == OutputMode(width: 1920, height: 1080, refreshRate: 60))
        #expect(s.crtcID == 41 && s.crtcIndex == 1)
    }

    @Test func connectorByNameInAnyCase() throws {
        #expect(try KMSSelection.choose(on: card(), connectorName: "hdmi-a-1", mode: .preferred).connector.id == 51)
    }

    @Test func sizeAndRate() throws {
        let s = try KMSSelection.choose(on: card(), connectorName: nil, mode: .size(width: 1280, height: 720, refreshRate: 50))
        #expect(s.mode.outputMode == OutputMode(width: 1280, height: 720, refreshRate: 50))
        let fastest = try KMSSelection.choose(on: card(), connectorName: nil, mode: .size(width: 1280, height: 720, refreshRate: nil))
        #expect(fastest.mode.refreshRate == 60)
    }

    /// The CRTC already driving the connector is kept: no needless reroute.
    @Test func currentCRTCIsKept() throws {
        let s = try KMSSelection.choose(on: card(hdmiEncoderCRTC: 41), connectorName: nil, mode: .preferred)
        #expect(s.crtcID == 41)
    }

    @Test func takenCRTCsAreSkipped() {
        #expect(throws: DisplayError.noCRTC(path: "/dev/dri/card0", connector: "HDMI-A-1")) {
            try KMSSelection.choose(on: card(), connectorName: nil, mode: .preferred, taken: [41])
        }
    }

    @Test func noConnectedConnectorListsThemAll() {
        var c = card()
        c.connectors[1].status = .disconnected
        do {
            _ = try KMSSelection.choose(on: c, connectorName: nil, mode: .preferred)
            Issue.record("no error")
        } catch {
            #expect(
                error.description
                    == "/dev/dri/card0: no connector has a screen attached; connectors: DP-1 (disconnected), HDMI-A-1 (disconnected), Virtual-1 (unknown) — check the cable and that the monitor is on (cat /sys/class/drm/*/status)"
            )
        }
    }

    @Test func namedConnectorWithoutAScreen() {
        do {
            _ = try KMSSelection.choose(on: card(), connectorName: "DP-1", mode: .preferred)
            Issue.record("no error")
        } catch {
            #expect(error.description.hasPrefix("/dev/dri/card0: connector DP-1 has no screen attached; connectors: DP-1 (disconnected), HDMI-A-1 (connected)"))
        }
    }

    @Test func unknownConnector() {
        do {
            _ = try KMSSelection.choose(on: card(), connectorName: "HDMI-A-2", mode: .preferred)
            Issue.record("no error")
        } catch {
            #expect(
                error.description
                    == "/dev/dri/card0: there is no connector HDMI-A-2; connectors: DP-1 (disconnected), HDMI-A-1 (connected), Virtual-1 (unknown)")
        }
    }

    @Test func modeTheScreenLacksListsItsModes() {
        do {
            _ = try KMSSelection.choose(on: card(), connectorName: nil, mode: .size(width: 3840, height: 2160, refreshRate: 60))
            Issue.record("no error")
        } catch {
            #expect(error.description == "HDMI-A-1: the screen has no mode 3840x2160@60; it offers 1920x1080@60, 1920x1080@50, 1280x720@60, 1280x720@50")
        }
        #expect(throws: DisplayError.self) {
            try KMSSelection.choose(on: card(), connectorName: nil, mode: .size(width: 1920, height: 1080, refreshRate: 75))
        }
    }

    /// 59.94 Hz from the pixel clock stays 59.94, and is what `WxH@59.94` picks.
    @Test func fractionalRatesFromThePixelClock() throws {
        var ntsc = KMSMode(width: 1920, height: 1080, refreshRate: 60)
        ntsc.info.clock = 148352
        ntsc.info.htotal = 2200
        ntsc.info.vtotal = 1125
        #expect(ntsc.refreshRate == 59.94)
        var c = card()
        c.connectors[1].modes.append(ntsc)
        let s = try KMSSelection.choose(on: c, connectorName: nil, mode: .size(width: 1920, height: 1080, refreshRate: 59.94))
        #expect(s.mode.refreshRate == 59.94)
    }

    // MARK: A CRTC for every connector

    /// Three CRTCs; connectors A, B and C with one encoder each, usable on `possible`
    /// (bit i: CRTC i), A on `aCurrent` now (0: none).
    func threeHeads(_ possible: [UInt32], aCurrent: UInt32 = 0) -> (KMSCard, [KMSConnector]) {
        let crtcs: [UInt32] = [40, 41, 42]
        let encoders = possible.enumerated().map { i, mask in KMSEncoder(id: 30 + UInt32(i), crtcID: i == 0 ? aCurrent : 0, possibleCRTCs: mask) }
        let connectors = possible.indices.map { i in
            KMSConnector(
                id: 50 + UInt32(i), name: "HDMI-A-\(i + 1)", status: .connected, modes: Self.hdmiModes, encoderID: i == 0 && aCurrent != 0 ? 30 : 0,
                encoderIDs: [30 + UInt32(i)])
        }
        return (KMSCard(path: "/dev/dri/card0", crtcIDs: crtcs, encoders: encoders, connectors: connectors), connectors)
    }

    @Test func everyConnectorGetsItsOwnCRTC() {
        let (card, connectors) = threeHeads([0b111, 0b111, 0b111])
        let assigned = KMSSelection.assignCRTCs(connectors, on: card, taken: [])
        #expect(assigned == [50: 0, 51: 1, 52: 2])
    }

    /// A takes CRTC 0 first, but B can only use CRTC 0: A moves to CRTC 1 rather than B
    /// going dark.
    @Test func anEarlierConnectorMovesForALaterOne() {
        let (card, connectors) = threeHeads([0b011, 0b001])
        #expect(KMSSelection.assignCRTCs(connectors, on: card, taken: []) == [50: 1, 51: 0])
    }

    @Test func theCurrentCRTCIsKept() {
        let (card, connectors) = threeHeads([0b111, 0b111], aCurrent: 42)
        #expect(KMSSelection.assignCRTCs(connectors, on: card, taken: []) == [50: 2, 51: 0])
    }

    /// More connectors than the CRTCs they can use: the later one goes without; CRTCs in
    /// use by other heads are never given.
    @Test func aConnectorWithoutAFreeCRTCGoesWithout() {
        let (card, connectors) = threeHeads([0b011, 0b011, 0b011])
        #expect(KMSSelection.assignCRTCs(connectors, on: card, taken: []) == [50: 0, 51: 1])
        #expect(KMSSelection.assignCRTCs(connectors, on: card, taken: [40]) == [50: 1])
    }

    /// Heads are made for the primary connector first, then the configuration's tables'
    /// connectors, then the rest as the card lists them; connectors without a screen never.
    @Test func connectedConnectorsInHeadOrder() {
        var (card, _) = threeHeads([0b111, 0b111, 0b111])
        card.connectors.append(KMSConnector(id: 53, name: "DP-1", status: .disconnected, modes: [], encoderIDs: [30]))
        let names = { (first: String?, order: [String]) in KMSSelection.connectedInOrder(on: card, first: first, then: order).map(\.name) }
        #expect(names(nil, []) == ["HDMI-A-1", "HDMI-A-2", "HDMI-A-3"])
        #expect(names(nil, ["HDMI-A-3", "DP-1"]) == ["HDMI-A-3", "HDMI-A-1", "HDMI-A-2"])
        #expect(names("hdmi-a-2", ["HDMI-A-3"]) == ["HDMI-A-2", "HDMI-A-3", "HDMI-A-1"])
    }
}
