import VitrineConfig
import VitrineOutput
import VitrineSystem

/// The headless backend's outputs: one per `[[outputs]]` table, named by its connector,
/// or the single "headless" output when there are none. A configuration reload that adds
/// or removes tables plugs in or unplugs emulated outputs, as screens would be: a rehearsal
/// of hotplug for layout work and tests.
public final class EmulatedOutputs: HotplugSource {
    /// An emulated output's size and rate where its table gives no mode
    /// (`[output] headless_size`, its rate).
    public struct Defaults: Sendable {
        public var width: Int
        public var height: Int
        public var rate: Double

        /// Defaults of `width`×`height` pixels at `rate` Hz.
        public init(width: Int, height: Int, rate: Double) {
            self.width = width
            self.height = height
            self.rate = rate
        }
    }

    public weak var hotplug: HotplugDelegate?
    public private(set) var outputs: [OutputBackend]

    /// The outputs `entries` describe, with the sizes and rate of `settings`.
    public init(_ entries: [Configuration.OutputEntry], settings: Defaults) throws(OutputError) {
        outputs =
            entries.isEmpty
            ? [try HeadlessOutput(width: settings.width, height: settings.height, refreshRate: settings.rate, bufferCount: 1)]
            : try entries.map { entry throws(OutputError) in try Self.output(for: entry, settings: settings) }
    }

    /// An emulated output for `entry`: at its mode's size, else `headless_size`; sides
    /// swapped for 90° and 270°. Nothing scans it out, so one buffer suffices.
    static func output(for entry: Configuration.OutputEntry, settings: Defaults) throws(OutputError) -> HeadlessOutput {
        var size = PixelSize(width: settings.width, height: settings.height)
        var rate = settings.rate
        if case .fixed(let fixed, let refresh) = entry.mode { (size, rate) = (fixed, refresh ?? rate) }
        if entry.rotation == .quarter || entry.rotation == .threeQuarters { size = PixelSize(width: size.height, height: size.width) }
        return try HeadlessOutput(name: entry.connector, width: size.width, height: size.height, refreshRate: rate, bufferCount: 1)
    }

    /// Reloads drive it, not a device.
    public func watchHotplug(on loop: EventLoop) throws {}

    /// Unplugs the outputs whose tables are gone and plugs in one for each new table
    /// (by connector), telling `hotplug`. The single "headless" output of a configuration
    /// without tables stays.
    public func follow(_ entries: [Configuration.OutputEntry], settings: Defaults) {
        guard !entries.isEmpty || outputs.contains(where: { $0.name != "headless" }) else { return }
        let wanted = Set(entries.map(\.connector))
        for output in outputs where !wanted.contains(output.connector) {
            outputs.removeAll { $0 === output }
            hotplug?.outputRemoved(output)
        }
        for entry in entries where !outputs.contains(where: { $0.connector == entry.connector }) {
            do {
                let output = try Self.output(for: entry, settings: settings)
                outputs.append(output)
                hotplug?.outputAdded(output)
            } catch {
                continue
            }
        }
    }
}
