import VitrineJSON
import ArgumentParser

/// How an animation runs: a duration and a curve, or a spring. Shared by `set` (its
/// `animation` object) and `animate`.
struct TimingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Seconds for one pass (a spring: default its settling time).", valueName: "seconds"))
    var duration: Double?

    @Option(help: ArgumentHelp("A named curve, or a cubic Bézier's control points x1,y1,x2,y2 (default: linear).", valueName: "curve"))
    var timing: TimingCurve?

    @Option(help: ArgumentHelp("Seconds from now until it begins.", valueName: "seconds"))
    var delay: Double?

    @Flag(help: "Move like a spring (with --damping, --stiffness, --mass, --velocity) instead of along a curve.")
    var spring = false

    @Option(help: ArgumentHelp("Spring damping (default 10).", valueName: "d"))
    var damping: Double?

    @Option(help: ArgumentHelp("Spring stiffness (default 100).", valueName: "k"))
    var stiffness: Double?

    @Option(help: ArgumentHelp("Spring mass (default 1).", valueName: "m"))
    var mass: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Spring initial velocity (default 0).", valueName: "v"))
    var velocity: Double?

    /// The spring options given, by flag name.
    private var springParameters: [(flag: String, field: String, value: Double)] {
        [("--damping", "damping", damping), ("--stiffness", "stiffness", stiffness), ("--mass", "mass", mass), ("--velocity", "initialVelocity", velocity)]
            .compactMap { flag, field, value in value.map { (flag, field, $0) } }
    }

    /// True when any of these options was given.
    var isGiven: Bool { duration != nil || timing != nil || delay != nil || spring || !springParameters.isEmpty }

    func validate() throws {
        if spring, timing != nil {
            throw ValidationError("--spring and --timing exclude each other: a spring's motion comes from its physics, not a curve")
        }
        if !spring, let first = springParameters.first {
            throw ValidationError("\(first.flag) shapes a spring; add --spring")
        }
        for (flag, value) in [("--duration", duration), ("--delay", delay)] {
            if let value, !(value.isFinite && value >= 0) { throw ValidationError("\(flag) is a number of seconds ≥ 0, not \(value)") }
        }
        for parameter in springParameters where !parameter.value.isFinite {
            throw ValidationError("\(parameter.flag) is a finite number")
        }
    }

    /// The timing fields of an animation object.
    var fields: [String: JSON] {
        var fields: [String: JSON] = [:]
        if spring { fields["type"] = .string("spring") }
        if let duration { fields["duration"] = .number(duration) }
        if let timing { fields["timing"] = timing.json }
        if let delay { fields["delay"] = .number(delay) }
        for parameter in springParameters { fields[parameter.field] = .number(parameter.value) }
        return fields
    }
}
