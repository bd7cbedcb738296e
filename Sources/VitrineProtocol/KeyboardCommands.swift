import VitrineCore

extension Command {
    /// Decodes the screen keyboard's commands (`osk.*`); nil when `name` is none of them.
    static func decodeKeyboard(_ name: String, _ r: Fields) throws(ProtocolError) -> Command? {
        switch name {
        case "osk.show":
            try r.only(["layout", "field"])
            return .oskShow(layout: try r.string("layout"), field: try field(r))
        case "osk.hide":
            try r.only([])
            return .oskHide
        case "osk.layout":
            try r.only(["layout"])
            return .oskLayout(layout: try r.string("layout"))
        default:
            return nil
        }
    }

    /// `osk.show`'s `"field"`: `[x, y, width, height]` in the output's pixels.
    private static func field(_ r: Fields) throws(ProtocolError) -> Rect? {
        guard let json = r.object["field"] else { return nil }
        let numbers = json.array?.compactMap(\.number) ?? []
        guard numbers.count == 4, json.array?.count == 4, numbers.allSatisfy({ $0.isFinite && abs($0) <= 1e6 }), numbers[2] >= 0, numbers[3] >= 0 else {
            throw ProtocolError(.wrongType, "osk.show: \"field\" is the text field's [x, y, width, height] in the output's pixels, such as [100, 400, 600, 48]")
        }
        return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}
