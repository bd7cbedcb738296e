/// The connector, mode and CRTC an output will use.
public struct KMSSelection: Sendable {
    public var connector: KMSConnector
    public var mode: KMSMode
    public var crtcID: UInt32
    /// The CRTC's index on the card (for planes' `possible_crtcs`).
    public var crtcIndex: Int

    /// Chooses on `card`: the connector named `connectorName` (any case), or the first
    /// connected one; then the mode; then a CRTC — the one the connector's encoder drives
    /// now (no flicker from a needless reroute), else the first free one an encoder of
    /// the connector can use. CRTCs in `taken` are in use by other outputs.
    public static func choose(on card: KMSCard, connectorName: String?, mode request: ModeRequest, taken: Set<UInt32> = []) throws(DisplayError) -> KMSSelection
    {
        let states = card.connectors.map { DisplayError.ConnectorState(name: $0.name, state: $0.status.rawValue) }
        let connector: KMSConnector
        if let name = connectorName, !name.isEmpty {
            guard let found = card.connectors.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw .unknownConnector(path: card.path, requested: name, connectors: states)
            }
            guard found.status == .connected, !found.modes.isEmpty else {
                throw .noConnectedConnector(path: card.path, requested: found.name, connectors: states)
            }
            connector = found
        } else {
            guard let found = card.connectors.first(where: { $0.status == .connected && !$0.modes.isEmpty }) else {
                throw .noConnectedConnector(path: card.path, requested: nil, connectors: states)
            }
            connector = found
        }
        let mode = try chooseMode(request, among: connector.modes, connector: connector.name)
        let (crtc, index) = try chooseCRTC(for: connector, on: card, taken: taken)
        return KMSSelection(connector: connector, mode: mode, crtcID: crtc, crtcIndex: index)
    }

    /// The preferred mode (else the first listed); or of the size asked for, at the rate
    /// asked for within half a hertz (else the preferred rate of that size, else the
    /// highest).
    static func chooseMode(_ request: ModeRequest, among modes: [KMSMode], connector: String) throws(DisplayError) -> KMSMode {
        switch request {
        case .preferred:
            if let mode = modes.first(where: \.isPreferred) ?? modes.first { return mode }
        case .size(let w, let h, let rate):
            let sized = modes.filter { $0.width == w && $0.height == h }
            if let rate {
                if let mode = sized.filter({ abs($0.refreshRate - rate) < 0.5 }).min(by: { abs($0.refreshRate - rate) < abs($1.refreshRate - rate) }) {
                    return mode
                }
            } else if let mode = sized.first(where: \.isPreferred) ?? sized.max(by: { $0.refreshRate < $1.refreshRate }) {
                return mode
            }
        }
        var seen = Set<OutputMode>()
        let available = modes.map(\.outputMode).filter { seen.insert($0).inserted }
        throw .modeUnavailable(connector: connector, requested: request.description, available: available)
    }

    /// The connected connectors (with modes) of `card`, in the order heads are made for
    /// them: `first` (any case), then those named in `order`, then the rest in the card's
    /// order. Names of connectors without a screen are passed over.
    public static func connectedInOrder(on card: KMSCard, first: String?, then order: [String]) -> [KMSConnector] {
        let ranks = ([first].compactMap { $0 } + order).map { $0.lowercased() }
        func rank(_ c: KMSConnector) -> Int { ranks.firstIndex(of: c.name.lowercased()) ?? ranks.count }
        return card.connectors.enumerated()
            .filter { $0.element.status == .connected && !$0.element.modes.isEmpty }
            .sorted { a, b in rank(a.element) != rank(b.element) ? rank(a.element) < rank(b.element) : a.offset < b.offset }
            .map(\.element)
    }

    /// A CRTC for each of `connectors` that can have one, no CRTC twice and none of
    /// `taken`: connector id → the CRTC's index on the card. Earlier connectors come first
    /// (each keeps the CRTC it is on now where it can); a later one moves an earlier one to
    /// another CRTC it can use rather than go without (augmenting paths), so that as many
    /// connectors as the encoders' `possible_crtcs` allow are driven.
    public static func assignCRTCs(_ connectors: [KMSConnector], on card: KMSCard, taken: Set<UInt32>) -> [UInt32: Int] {
        let candidates = connectors.map { connector -> [Int] in
            var list: [Int] = []
            if let current = card.encoders.first(where: { $0.id == connector.encoderID }), current.crtcID != 0,
                let index = card.crtcIDs.firstIndex(of: current.crtcID)
            {
                list.append(index)
            }
            for encoderID in connector.encoderIDs {
                guard let encoder = card.encoders.first(where: { $0.id == encoderID }) else { continue }
                for index in card.crtcIDs.indices where encoder.possibleCRTCs & (1 << UInt32(index)) != 0 && !list.contains(index) {
                    list.append(index)
                }
            }
            return list.filter { !taken.contains(card.crtcIDs[$0]) }
        }
        var owner: [Int: Int] = [:]
        // A free CRTC first; else one whose owner can move to another.
        func place(_ connector: Int, _ visited: inout Set<Int>) -> Bool {
            if let free = candidates[connector].first(where: { owner[$0] == nil && !visited.contains($0) }) {
                owner[free] = connector
                return true
            }
            for crtc in candidates[connector] where visited.insert(crtc).inserted {
                guard let other = owner[crtc], place(other, &visited) else { continue }
                owner[crtc] = connector
                return true
            }
            return false
        }
        for i in connectors.indices {
            var visited = Set<Int>()
            _ = place(i, &visited)
        }
        var result: [UInt32: Int] = [:]
        for (crtc, connector) in owner { result[connectors[connector].id] = crtc }
        return result
    }

    static func chooseCRTC(for connector: KMSConnector, on card: KMSCard, taken: Set<UInt32>) throws(DisplayError) -> (UInt32, Int) {
        if let current = card.encoders.first(where: { $0.id == connector.encoderID }), current.crtcID != 0,
            !taken.contains(current.crtcID), let index = card.crtcIDs.firstIndex(of: current.crtcID)
        {
            return (current.crtcID, index)
        }
        for encoderID in connector.encoderIDs {
            guard let encoder = card.encoders.first(where: { $0.id == encoderID }) else { continue }
            for (index, crtc) in card.crtcIDs.enumerated() where encoder.possibleCRTCs & (1 << UInt32(index)) != 0 && !taken.contains(crtc) {
                return (crtc, index)
            }
        }
        throw .noCRTC(path: card.path, connector: connector.name)
    }
}
