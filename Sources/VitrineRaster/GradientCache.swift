import VitrineCore

/// A gradient's colours at `steps + 1` evenly spaced ramp positions, premultiplied: what
/// gradient spans look up.
final class GradientRamp {
    static let steps = 1024
    let table: UnsafeMutablePointer<UInt32>
    /// Every entry is opaque.
    let isOpaque: Bool

    init(_ g: Gradient) {
        table = .allocate(capacity: Self.steps + 1)
        let stops = g.resolvedLocations
        var segment = 1
        var opaque = true
        for i in 0...Self.steps {
            table[i] = PremultipliedColor(g.color(at: Double(i) / Double(Self.steps), stops: stops, segment: &segment)).argb
            opaque = opaque && table[i] >= 0xFF00_0000
        }
        isOpaque = opaque
    }

    deinit { table.deallocate() }
}

/// Gradient colour tables kept between draws, so that a background gradient repainted
/// for every damage rectangle of every frame is sampled once (a table is 1025 colours
/// interpolated and premultiplied, which costs more than shading a small rectangle).
///
/// Tables are keyed by the colours and locations, not by the geometry. At most
/// `capacity` (4 KB each) are kept; the least recently used go first.
///
/// ```swift
/// let gradients = GradientCache()
/// surface.fill(screen, gradient: background, clip: Clip(rect: damage), cache: gradients)
/// ```
///
/// One cache serves one drawing thread at a time.
public final class GradientCache {
    /// The most tables kept.
    public let capacity: Int
    /// Lookups that found a table.
    public private(set) var hits = 0
    /// Lookups that had to build one.
    public private(set) var misses = 0

    private struct Key: Hashable {
        let colors: [Color]
        let locations: [Double]
    }

    private var entries: [Key: (ramp: GradientRamp, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    /// A cache for at most `capacity` tables.
    public init(capacity: Int = 32) {
        self.capacity = max(1, capacity)
    }

    /// The number of tables held.
    public var count: Int { entries.count }

    /// Drops every table.
    public func removeAll() { entries.removeAll() }

    /// The table of `gradient`, built on a miss.
    func ramp(for gradient: Gradient) -> GradientRamp {
        clock &+= 1
        let key = Key(colors: gradient.colors, locations: gradient.resolvedLocations)
        if let hit = entries[key] {
            hits += 1
            entries[key]!.lastUse = clock
            return hit.ramp
        }
        misses += 1
        let ramp = GradientRamp(gradient)
        entries[key] = (ramp, clock)
        if entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[oldest.key] = nil
        }
        return ramp
    }
}
