import FoundationEssentials
import Glibc
import VitrineCore
import VitrineProtocol
import VitrineSystem

extension Configuration {
    /// One `[[outputs]]` table: what a connector shows and how — its mode, rotation, the
    /// root layer scripts address it by, the scene put under that root at start, and when
    /// it sleeps.
    ///
    /// ```toml
    /// [[outputs]]
    /// connector = "HDMI-A-2"
    /// mode = "1920x1080@60"
    /// root = "menu"
    /// scene = "menu.json"
    /// power_off = "22:00"
    /// power_on = "07:00"
    /// ```
    public struct OutputEntry: Sendable, Hashable {
        /// `connector`: the connector's name ("HDMI-A-1", "Virtual-2"); with the headless
        /// backend, the name of an emulated output. Required.
        public var connector: String
        /// `mode`: "preferred", "WxH" or "WxH@Hz". Default "preferred" (headless:
        /// `headless_size` at `headless_rate`).
        public var mode: Output.Mode = .preferred
        /// `rotation`: 0, 90, 180 or 270 degrees clockwise. Default 0.
        public var rotation: Output.Rotation = .none
        /// `root`: the id of the output's root layer; "" for the default — "root" for the
        /// first output, the connector's name for the others.
        public var root = ""
        /// `scene`: a JSON scene file shown under the output's root when it appears
        /// (relative paths start in the configuration's directory); "" for none.
        public var sceneFile = ""
        /// The scene `scene` names, read and checked.
        public var scene: SceneDescription?
        /// `power_off` / `power_on`: local times ("HH:MM") at which the output is blanked
        /// and woken every day; nil when not given (both or neither).
        public var schedule: PowerSchedule?
        /// `viewport`: the output's rectangle of the wall's canvas (`[wall]`), `[x, y,
        /// width, height]`; nil (`[]`, the default) when it shows its own root.
        public var viewport: Viewport?
        /// `scale`: how many output pixels make one of a Wayland client's logical pixels
        /// (1, 1.25, 1.5, 2, …; 1…4 in 120ths, as `wp_fractional_scale_v1` tells it). Its
        /// windows are configured at their layers' sizes divided by it, and draw their
        /// buffers at it: sharp, their interface that much larger. Default 1.
        public var scale = 1.0
        /// `cec`: the HDMI-CEC adapter of the TV this output shows on, through which it is
        /// woken and put in standby with the output ("/dev/cec0"); "auto" for the adapter
        /// whose connector information names this output (else the one adapter of a
        /// source, not a TV); "" (the default) for none.
        public var cec = ""

        public init(connector: String) { self.connector = connector }

        public static func == (a: OutputEntry, b: OutputEntry) -> Bool {
            (a.connector, a.mode, a.rotation, a.root, a.sceneFile, a.schedule) == (b.connector, b.mode, b.rotation, b.root, b.sceneFile, b.schedule)
                && a.viewport == b.viewport && a.scale == b.scale && a.cec == b.cec
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(connector)
            hasher.combine(root)
        }
    }

    /// A daily sleep: blanked from `off` until `on`, local time, in minutes after midnight.
    /// `off` may be later than `on` (asleep over midnight: 22:00 → 07:00) or earlier (a
    /// nap: 12:00 → 13:00).
    public struct PowerSchedule: Sendable, Hashable, CustomStringConvertible {
        /// Minutes after midnight the output is blanked.
        public var off: Int
        /// Minutes after midnight it is woken.
        public var on: Int

        public init(off: Int, on: Int) {
            self.off = off
            self.on = on
        }

        /// Parses "HH:MM" (00:00…23:59) into minutes after midnight.
        public static func minutes(parsing text: String) -> Int? {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
                (0...23).contains(h), (0...59).contains(m)
            else { return nil }
            return h * 60 + m
        }

        /// Whether the output is awake at `minute` after midnight.
        public func isOn(atMinute minute: Int) -> Bool {
            off < on ? !(off..<on).contains(minute) : (on..<off).contains(minute)
        }

        /// Whether the output is awake at `instant` (seconds since the epoch), read on the
        /// local clock (the process's time zone, `TZ`).
        public func isOn(at instant: Int) -> Bool {
            isOn(atMinute: LocalCalendar.reading(at: instant).minute)
        }

        /// The first instant after `instant` (seconds since the epoch) at which the local
        /// clock reads `off` or `on` (`LocalCalendar`: a daylight-saving change moves no change).
        public func nextChange(after instant: Int) -> Int {
            LocalCalendar.next(after: instant, readingAnyOf: [off, on])
        }

        public var description: String {
            func hhmm(_ m: Int) -> String { (m / 60 < 10 ? "0" : "") + "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)" }
            return "off \(hhmm(off)), on \(hhmm(on))"
        }
    }
}

extension Configuration.OutputEntry {
    static let keys = ["connector", "mode", "rotation", "root", "scene", "power_off", "power_on", "viewport", "scale", "cec"]

    /// Reads every `[[outputs]]` table; connectors and roots must each be unique.
    static func readAll(_ top: TableReader, source: String) throws(ConfigError) -> [Configuration.OutputEntry] {
        guard let node = top.entries["outputs"] else { return [] }
        guard let items = node.array, items.allSatisfy({ $0.table != nil }) else {
            throw top.error("outputs", "must be [[outputs]] tables, each with a connector, got \(node.written)")
        }
        var entries: [Configuration.OutputEntry] = []
        for (i, item) in items.enumerated() {
            let reader = TableReader(path: "outputs[\(i)]", entries: item.table ?? [:], context: top.context)
            let entry = try Configuration.OutputEntry(reading: reader, source: source)
            if entries.contains(where: { $0.connector == entry.connector }) {
                throw reader.error("connector", "\"\(entry.connector)\" is given by an earlier [[outputs]] table; give each connector once")
            }
            // Outputs of a wall show one root ([wall] checks that they agree).
            if !entry.root.isEmpty, entries.contains(where: { $0.root == entry.root && ($0.viewport == nil || entry.viewport == nil) }) {
                throw reader.error("root", "\"\(entry.root)\" is the root of an earlier [[outputs]] table; give each output its own root id")
            }
            entries.append(entry)
        }
        return entries
    }

    init(reading r: TableReader, source: String) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        guard r.entries["connector"] != nil else {
            throw r.context.error(r.path, "an [[outputs]] table needs a connector, such as connector = \"HDMI-A-1\"")
        }
        self.init(connector: try r.string("connector", "", expected: "a connector name such as \"HDMI-A-1\"") { !$0.isEmpty && $0.count <= 64 })
        mode = try r.value("mode", mode, expected: "\"preferred\", \"WxH\" or \"WxH@Hz\" such as \"1920x1080@60\"") {
            $0.string.flatMap(Configuration.Output.Mode.init(parsing:))
        }
        rotation = try r.value("rotation", rotation, expected: "0, 90, 180 or 270") {
            if case .integer(let i) = $0 { Configuration.Output.Rotation(rawValue: i) } else { nil }
        }
        root = try r.string("root", "", expected: "a layer id such as \"menu\" (letters, digits, '-', '_', '.'), or \"\" for the default") { id in
            id.count <= 128 && id.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) }
        }
        viewport = try r.value("viewport", viewport, expected: Configuration.Wall.viewportForm) {
            $0.array?.isEmpty == true ? .some(nil) : Configuration.Viewport.reading($0).map { .some($0) }
        }
        scale = try r.number("scale", scale, expected: "a scale 1…4 in steps of 1/120, such as 1, 1.25, 1.5 or 2") {
            (1...4).contains($0) && abs(($0 * 120).rounded() - $0 * 120) < 1e-6
        }
        cec = try r.string("cec", "", expected: "a CEC adapter such as \"/dev/cec0\", \"auto\", or \"\" for none") {
            $0.isEmpty || $0 == "auto" || ($0.hasPrefix("/dev/") && $0.count <= 256)
        }
        let times = try ["power_off", "power_on"].map { key throws(ConfigError) in
            try r.value(key, nil as Int?, expected: "a local time \"HH:MM\", such as \"22:00\"") {
                $0.string.flatMap(Configuration.PowerSchedule.minutes(parsing:))
            }
        }
        switch (times[0], times[1]) {
        case (let off?, let on?):
            guard off != on else { throw r.error("power_on", "must differ from power_off, or the output would never sleep") }
            schedule = Configuration.PowerSchedule(off: off, on: on)
        case (nil, nil): break
        case (nil, _): throw r.error("power_on", "needs power_off too: give both times, such as power_off = \"22:00\" and power_on = \"07:00\"")
        case (_, nil): throw r.error("power_off", "needs power_on too: give both times, such as power_off = \"22:00\" and power_on = \"07:00\"")
        }
        let written = try r.string("scene", "", expected: "the path of a JSON scene file, such as \"menu.json\"")
        guard !written.isEmpty else { return }
        sceneFile =
            written.hasPrefix("/")
            ? written : URL(fileURLWithPath: source).deletingLastPathComponent().appendingPathComponent(written).standardizedFileURL.path
        let data: Data
        do { data = Data(try SafeFile.read(sceneFile, limit: SceneDescription.fileLimit).bytes) } catch {
            throw r.error("scene", "cannot read the scene file \(sceneFile): \(error.reason)")
        }
        do { scene = try SceneDescription(json: JSON(parsing: data)) } catch {
            throw r.error("scene", "\(sceneFile): \(error.message)")
        }
    }
}
