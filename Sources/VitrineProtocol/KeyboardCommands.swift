extension Command {
    /// Decodes the screen keyboard's commands (`osk.*`); nil when `name` is none of them.
    static func decodeKeyboard(_ name: String, _ r: Fields) throws(ProtocolError) -> Command? {
        switch name {
        case "osk.show":
            try r.only(["layout"])
            return .oskShow(layout: try r.string("layout"))
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
}
