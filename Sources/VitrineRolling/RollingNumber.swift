import FoundationEssentials
import Glibc
import VitrineCore
import VitrineFormat

/// How a change of value animates its digit columns (RollingNumbers' animation types).
public enum RollAnimationType: String, CaseIterable, Sendable {
    /// Every digit column rolls; unchanged digits make a full turn.
    case allNumbers
    /// Only the columns whose character changes roll.
    case onlyChangedNumbers
    /// The first changed column and every column after it (towards the units) roll, as
    /// an odometer's wheels do.
    case allAfterFirstChangedNumber
    /// The new value shows at once.
    case noAnimation
}

/// Which way the digit columns roll.
public enum RollDirection: String, CaseIterable, Sendable {
    /// Up when the value grows, down when it shrinks.
    case auto
    /// Digits move up (the next digit comes from below).
    case up
    /// Digits move down.
    case down
}

/// The defaults a rolling number takes where a layer or a call says nothing (from the
/// configuration's `[rolling_number]` and `[animation.spring]`).
public struct RollingNumberDefaults: Sendable {
    public var animationType: RollAnimationType = .allAfterFirstChangedNumber
    public var direction: RollDirection = .auto
    public var characterSpacing = 1.0
    public var font = "DejaVu Sans"
    public var fontSize = 96.0
    /// The spring the columns roll with.
    public var spring = SpringSettings()

    public init() {}
}

/// The `rolling-number` layer kind: a formatted number whose digits roll in columns.
public enum RollingNumber {
    public static let kindName = "rolling-number"
    /// The custom property holding the columns' state (see `RollColumns`).
    public static let stateKey = "roll"

    /// The kind with `defaults` as its properties' defaults.
    public static func kind(defaults: RollingNumberDefaults = RollingNumberDefaults()) -> LayerKind {
        LayerKind(
            name: kindName,
            extraProperties: [
                PropertyDescriptor("value", .number(0), animatable: false, range: -1e15...1e15),
                PropertyDescriptor("format", .string("decimal"), animatable: false, allowed: NumberFormat.Style.allCases.map(\.rawValue)),
                PropertyDescriptor("currencyCode", .string("USD"), animatable: false, check: Formatting.currencyProblem),
                PropertyDescriptor("locale", .string("en_US"), animatable: false, check: Formatting.localeProblem),
                // -1: unset, the format's own (`NumberFormat.ownFractionDigits`).
                PropertyDescriptor("minimumFractionDigits", .number(-1), animatable: false, range: -1...20, integer: true),
                PropertyDescriptor("maximumFractionDigits", .number(-1), animatable: false, range: -1...20, integer: true),
                PropertyDescriptor("minimumIntegerDigits", .number(1), animatable: false, range: 0...40, integer: true),
                PropertyDescriptor("usesGrouping", .bool(true), animatable: false),
                PropertyDescriptor("font", .string(defaults.font), animatable: false),
                PropertyDescriptor("fontSize", .number(defaults.fontSize), range: 0...4096),
                PropertyDescriptor("textColor", .color(.white), aliases: ["foregroundColor"]),
                PropertyDescriptor("alignmentMode", .string("left"), animatable: false, allowed: ["left", "center", "right"], aliases: ["alignment"]),
                PropertyDescriptor("characterSpacing", .number(defaults.characterSpacing), animatable: false, range: 0.1...10),
                PropertyDescriptor(
                    "animationType", .string(defaults.animationType.rawValue), animatable: false, allowed: RollAnimationType.allCases.map(\.rawValue)),
                PropertyDescriptor("direction", .string(defaults.direction.rawValue), animatable: false, allowed: RollDirection.allCases.map(\.rawValue)),
                PropertyDescriptor("rollThroughDigits", .bool(true), animatable: false),
                PropertyDescriptor("springDuration", .number(defaults.spring.duration), animatable: false, range: 0.01...60),
                PropertyDescriptor("springSpeed", .number(defaults.spring.speed), animatable: false, range: 0.01...100),
                PropertyDescriptor("damping", .number(defaults.spring.damping), animatable: false, range: 0...1e6),
                PropertyDescriptor("initialVelocity", .number(defaults.spring.initialVelocity), animatable: false, range: -1e4...1e4),
                PropertyDescriptor("mass", .number(defaults.spring.mass), animatable: false, range: 0.001...1e6),
                PropertyDescriptor("stiffness", .number(defaults.spring.stiffness), animatable: false, range: 0.001...1e9),
            ], customPropertiesAffectDisplay: true)
    }

    /// The properties whose change changes the formatted text.
    public static let formattingKeys: Set<String> = [
        "value", "format", "currencyCode", "locale", "minimumFractionDigits", "maximumFractionDigits",
        "minimumIntegerDigits", "usesGrouping",
    ]
}

/// A rolling number's properties, read from its values.
public struct RollingNumberProperties: Sendable {
    public var value: Double
    public var format: NumberFormat
    public var font: String
    public var fontSize: Double
    public var textColor: Color
    public var alignment: String
    public var characterSpacing: Double
    /// How its columns roll to a new value.
    public var style: RollStyle

    /// Reads the properties of a layer of a kind made by `RollingNumber.kind`.
    public init(_ v: PropertyValues, kind: LayerKind) {
        func value(_ name: String) -> Value? { kind.slot(of: name).map { v[slot: $0] } }
        func number(_ name: String, _ fallback: Double) -> Double { value(name)?.number ?? fallback }
        func string(_ name: String, _ fallback: String) -> String { value(name)?.string ?? fallback }
        let defaults = RollingNumberDefaults()
        self.value = number("value", 0)
        // A negative count is unset: the format's own.
        func digits(_ name: String) -> Int? { Int(exactly: number(name, -1)).flatMap { $0 < 0 ? nil : $0 } }
        format = NumberFormat(
            style: NumberFormat.Style(rawValue: string("format", "decimal")) ?? .decimal,
            currencyCode: string("currencyCode", "USD"), locale: string("locale", "en_US"),
            minimumIntegerDigits: Int(number("minimumIntegerDigits", 1)),
            usesGrouping: value("usesGrouping")?.bool ?? true)
        format.fractionDigits = format.fractionDigits(minimum: digits("minimumFractionDigits"), maximum: digits("maximumFractionDigits"))
        font = string("font", defaults.font)
        fontSize = number("fontSize", defaults.fontSize)
        textColor = value("textColor")?.color ?? .white
        alignment = string("alignmentMode", "left")
        characterSpacing = number("characterSpacing", defaults.characterSpacing)
        let d = defaults.spring
        style = RollStyle(
            animationType: RollAnimationType(rawValue: string("animationType", "")) ?? defaults.animationType,
            direction: RollDirection(rawValue: string("direction", "")) ?? defaults.direction,
            rollThroughDigits: value("rollThroughDigits")?.bool ?? true,
            spring: RollSpring(
                duration: number("springDuration", d.duration), speed: number("springSpeed", d.speed), damping: number("damping", d.damping),
                initialVelocity: number("initialVelocity", d.initialVelocity), mass: number("mass", d.mass), stiffness: number("stiffness", d.stiffness)))
    }

    /// The text the number shows.
    public var text: String { format.string(for: value) }
}

/// The spring that moves the columns.
public typealias RollSpring = SpringSettings

extension SpringSettings {
    /// A spring animation of `keyPath` from `from` to `to` beginning at `begin`.
    func animation(_ keyPath: KeyPath, from: Double, to: Double, begin: Double) throws(CoreError) -> Animation {
        var a = Animation.spring(
            keyPath, from: .number(from), to: .number(to),
            spring: try spring(), duration: duration)
        a.timing.speed = speed
        a.timing.beginTime = begin
        return a
    }
}
