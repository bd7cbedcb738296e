import VitrineCore

/// The layers of one output's identification screen: who the device is (host name,
/// addresses, fleet id), how to reach its daemon (the control socket), what the output is
/// (name, mode) and a QR code of the device's id, on a dark backdrop that covers the root.
///
/// Every layer's id starts with `prefix` (`identify:ROOT`); removing the layer of that id
/// removes them all. Sizes follow the root's: a 1920×1080 root is the reference, a smaller
/// or larger one scales the type and the spacing, and the QR code's modules are whole
/// pixels, at least 2 on a side, with the four-module quiet zone around them.
public struct IdentificationView: Sendable, Equatable {
    /// What the screen says.
    public struct Content: Sendable, Equatable {
        public var facts: DeviceFacts
        /// What the QR code holds and the line under it says.
        public var deviceID: String
        /// The fleet line: "screen-12 on mqtt.example:8883", or "off".
        public var fleet: String
        public var socketPath: String
        public var version: String
        /// The output's connector name(s) and mode: "HDMI-A-1 · 1920×1080 at 60 Hz".
        public var output: String

        public init(facts: DeviceFacts, deviceID: String, fleet: String, socketPath: String, version: String, output: String) {
            (self.facts, self.deviceID, self.fleet, self.socketPath, self.version, self.output) =
                (facts, deviceID, fleet, socketPath, version, output)
        }
    }

    /// The root it covers and the id of its top layer.
    public let root: String
    public let prefix: String
    public let size: Size
    public let content: Content
    /// The QR code of `content.deviceID`; nil when it cannot be made (no libqrencode).
    public let code: QRCode?

    /// The most addresses listed; more are counted ("and 3 more").
    public static let addressLines = 4
    static let backdrop = Color(red: 0.055, green: 0.071, blue: 0.102, alpha: 1)
    static let accent = Color(red: 0.22, green: 0.74, blue: 0.97, alpha: 1)
    static let muted = Color(red: 0.58, green: 0.64, blue: 0.72, alpha: 1)
    static let text = Color(red: 0.95, green: 0.96, blue: 0.98, alpha: 1)

    public init(root: String, size: Size, content: Content, code: QRCode?) {
        self.root = root
        prefix = "identify:" + root
        self.size = size
        self.content = content
        self.code = code
    }

    /// Adds the screen's layers on top of the root's: the text in a column on the left and
    /// the QR code beside it, or below it on a portrait root.
    public func build() -> Transaction {
        var tx = Transaction(disableActions: true)
        let (w, h) = (size.width.rounded(.down), size.height.rounded(.down))
        let portrait = h > w
        let s = max(0.25, portrait ? min(w / 1080, h / 1920) : min(w / 1920, h / 1080))
        let margin = (96 * s).rounded()
        let caption = (96 * s).rounded()
        let modules = Double((code?.size ?? 0) + 2 * QRCode.quietZone)
        tx.add(layer: prefix, parent: root, properties: Self.frame(x: 0, y: 0, width: w, height: h, ["backgroundColor": .color(Self.backdrop)]))
        var column = w - 2 * margin
        var qr: (x: Double, y: Double, module: Int)?
        if code != nil, !portrait {
            let module = max(2, Int(min(h * 0.55, w * 0.36) / modules))
            let side = Double(module) * modules
            qr = (w - margin - side, ((h - side - caption) / 2).rounded(.down), module)
            column = max(100, w - 2 * margin - side - 64 * s)
        }
        var y = margin
        text(&tx, "title", "VITRINE", x: margin, y: y, width: column, size: 30 * s, colour: Self.accent, bold: true)
        y += 56 * s
        text(&tx, "host", content.facts.hostName.isEmpty ? "(no host name)" : content.facts.hostName, x: margin, y: y, width: column, size: 88 * s, bold: true)
        y += 150 * s
        var addresses = Array(content.facts.addresses.prefix(Self.addressLines))
        if content.facts.addresses.isEmpty { addresses = ["no network address yet"] }
        if content.facts.addresses.count > Self.addressLines { addresses.append("and \(content.facts.addresses.count - Self.addressLines) more") }
        y = section(&tx, "addresses", "NETWORK", addresses, y: y, x: margin, width: column, scale: s)
        y = section(&tx, "fleet", "FLEET", [content.fleet], y: y, x: margin, width: column, scale: s)
        y = section(&tx, "socket", "CONTROL SOCKET", [content.socketPath], y: y, x: margin, width: column, scale: s)
        y = section(&tx, "output", "THIS OUTPUT", [content.output], y: y, x: margin, width: column, scale: s)
        if code != nil, portrait {
            let room = h - margin - 100 * s - caption - y
            let module = max(2, Int(min(w * 0.6, room) / modules))
            qr = (margin, y.rounded(), module)
        }
        if let code, let qr {
            let side = Double(qr.module) * modules
            tx.add(
                layer: prefix + ":qr", kind: "shape", parent: prefix,
                properties: Self.frame(
                    x: qr.x, y: qr.y, width: side, height: side,
                    [
                        "backgroundColor": .color(.white), "fillColor": .color(.black),
                        "path": .string(code.pathData(module: qr.module, origin: qr.module * QRCode.quietZone)),
                    ]))
            text(&tx, "qr-label", "DEVICE ID", x: qr.x, y: qr.y + side + 20 * s, width: side, size: 22 * s, colour: Self.muted, centred: true)
            text(&tx, "device-id", content.deviceID, x: qr.x - 40 * s, y: qr.y + side + 52 * s, width: side + 80 * s, size: 26 * s, mono: true, centred: true)
        }
        let footer = "No scene is configured. Add [scene] to the configuration, or drive this screen over the control socket (vitrinectl)."
        text(&tx, "footer", footer, x: margin, y: h - margin - 60 * s, width: w - 2 * margin, size: 22 * s, colour: Self.muted, lines: 2)
        text(&tx, "version", "vitrined " + content.version, x: margin, y: h - margin, width: w - 2 * margin, size: 22 * s, colour: Self.muted)
        return tx
    }

    /// The id of the text layer of `name` ("host", "addresses-0", "device-id", …).
    public func id(_ name: String) -> String { prefix + ":" + name }

    /// A label and its lines of values from `y`; returns where the next section starts.
    private func section(_ tx: inout Transaction, _ name: String, _ label: String, _ values: [String], y: Double, x: Double, width: Double, scale s: Double)
        -> Double
    {
        text(&tx, name + "-label", label, x: x, y: y, width: width, size: 22 * s, colour: Self.muted)
        var y = y + 34 * s
        for (i, value) in values.enumerated() {
            text(&tx, values.count == 1 ? name : "\(name)-\(i)", value, x: x, y: y, width: width, size: 34 * s, mono: name != "fleet")
            y += 46 * s
        }
        return y + 26 * s
    }

    private func text(
        _ tx: inout Transaction, _ name: String, _ string: String, x: Double, y: Double, width: Double, size: Double, colour: Color = text,
        bold: Bool = false, mono: Bool = false, centred: Bool = false, lines: Int = 1
    ) {
        let font = mono ? "DejaVu Sans Mono" : bold ? "DejaVu Sans:bold" : "DejaVu Sans"
        tx.add(
            layer: id(name), kind: "text", parent: prefix,
            properties: Self.frame(
                x: x.rounded(), y: y.rounded(), width: width.rounded(), height: (size * 1.3 * Double(lines)).rounded(),
                [
                    "isWrapped": .bool(lines > 1),
                    "string": .string(string), "font": .string(font), "fontSize": .number(size.rounded()), "foregroundColor": .color(colour),
                    "alignmentMode": .string(centred ? "center" : "left"), "truncationMode": .string("end"),
                ]))
    }

    /// `properties` with a frame at (`x`, `y`) of `width` × `height` (anchored top-left).
    private static func frame(x: Double, y: Double, width: Double, height: Double, _ properties: [String: Value]) -> [String: Value] {
        var all = properties
        all["anchorPoint"] = .point(Point(x: 0, y: 0))
        all["position"] = .point(Point(x: x, y: y))
        all["bounds"] = .rect(Rect(x: 0, y: 0, width: width, height: height))
        return all
    }
}
