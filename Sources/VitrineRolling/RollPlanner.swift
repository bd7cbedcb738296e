import VitrineCore

/// A change of a rolling number's value — `number.set`'s, or the one a change of its value
/// or format makes — and how it rolls where it differs from the layer's own style.
public struct RollRequest: Hashable, Sendable {
    public var value: Double
    /// false: the new value shows at once.
    public var animated: Bool
    /// Overrides of the layer's style; nil keeps the layer's.
    public var animationType: RollAnimationType?
    public var direction: RollDirection?
    public var rollThroughDigits: Bool?
    public var spring: RollSpringOverrides

    public init(
        value: Double, animated: Bool, animationType: RollAnimationType? = nil, direction: RollDirection? = nil,
        rollThroughDigits: Bool? = nil, spring: RollSpringOverrides = RollSpringOverrides()
    ) {
        self.value = value
        self.animated = animated
        self.animationType = animationType
        self.direction = direction
        self.rollThroughDigits = rollThroughDigits
        self.spring = spring
    }

    /// `style` (the layer's) with this request's overrides.
    public func style(over style: RollStyle) -> RollStyle {
        RollStyle(
            animationType: animationType ?? style.animationType, direction: direction ?? style.direction,
            rollThroughDigits: rollThroughDigits ?? style.rollThroughDigits, spring: spring.applied(to: style.spring))
    }
}

/// How a rolling number's columns roll to a new value.
public struct RollStyle: Hashable, Sendable {
    public var animationType: RollAnimationType
    public var direction: RollDirection
    public var rollThroughDigits: Bool
    public var spring: RollSpring

    public init(animationType: RollAnimationType, direction: RollDirection, rollThroughDigits: Bool, spring: RollSpring) {
        self.animationType = animationType
        self.direction = direction
        self.rollThroughDigits = rollThroughDigits
        self.spring = spring
    }
}

/// A request's changes to the spring a number rolls with; nil keeps the layer's.
public struct RollSpringOverrides: Hashable, Sendable {
    public var duration: Double?
    public var speed: Double?
    public var damping: Double?
    public var initialVelocity: Double?
    public var mass: Double?
    public var stiffness: Double?

    public init(
        duration: Double? = nil, speed: Double? = nil, damping: Double? = nil, initialVelocity: Double? = nil,
        mass: Double? = nil, stiffness: Double? = nil
    ) {
        (self.duration, self.speed, self.damping, self.initialVelocity, self.mass, self.stiffness) =
            (duration, speed, damping, initialVelocity, mass, stiffness)
    }

    /// `spring` with these changes.
    public func applied(to spring: RollSpring) -> RollSpring {
        var s = spring
        s.duration = duration ?? s.duration
        s.speed = speed ?? s.speed
        s.damping = damping ?? s.damping
        s.initialVelocity = initialVelocity ?? s.initialVelocity
        s.mass = mass ?? s.mass
        s.stiffness = stiffness ?? s.stiffness
        return s
    }
}

/// Plans how a rolling number's columns go from what they show to a new text.
///
/// Each column rolls from the character shown — mid-roll, from exactly where it is — to
/// its new character in the chosen direction, through the digits between (or directly),
/// moved by the request's spring. Columns that enter or leave the text grow or shrink
/// with the same spring. Every animation goes into one transaction, so its completion
/// says when the whole number has settled.
public enum RollPlanner {
    /// The key of the animation that moves column `k`'s window.
    public static func positionKey(_ k: Int) -> String { "\(RollingNumber.stateKey).pos.\(k)" }
    /// The key of the animation that grows or shrinks column `k`.
    public static func presenceKey(_ k: Int) -> String { "\(RollingNumber.stateKey).presence.\(k)" }

    /// The column a key made by `positionKey` or `presenceKey` animates, nil for other keys.
    static func column(ofKey key: String) -> Int? {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == RollingNumber.stateKey, parts[1] == "pos" || parts[1] == "presence" else { return nil }
        return Int(parts[2])
    }

    /// The transaction that makes layer `id` show `text` for `request`, rolling as
    /// `style` (the layer's) with the request's overrides.
    ///
    /// - Parameters:
    ///   - oldValue: the value shown so far (for the `auto` direction).
    ///   - model, presentation: the columns' state now (nil when the layer has none yet).
    ///   - running: keys of the layer's animations, to remove the ones that must stop.
    ///   - begin: the layer's local time now, when the animations begin.
    public static func plan(
        layer id: String, text: String, oldValue: Double, request: RollRequest, style layerStyle: RollStyle, model: RollColumns?,
        presentation: RollColumns?, running: Set<String>, begin: Double
    ) throws(CoreError) -> Transaction {
        let style = request.style(over: layerStyle)
        let base = model ?? RollColumns(showing: "")
        let shown = presentation ?? base
        var columns = base.columns
        while columns.count > shown.columns.count { columns.removeLast() }
        while columns.count < shown.columns.count { columns.append(shown.columns[columns.count]) }
        // Columns that have fully left (nothing shows, nothing moves) are forgotten.
        var count = columns.count
        while count > 0, columns[count - 1].presence == 0, shown.columns[count - 1].presence <= 1e-9,
            !running.contains(presenceKey(count - 1)), !running.contains(positionKey(count - 1))
        {
            count -= 1
        }
        columns.removeLast(columns.count - count)

        let chars = Array(text.reversed())
        let animate = request.animated && style.animationType != .noAnimation
        let up: Bool =
            switch style.direction {
            case .up: true
            case .down: false
            case .auto: request.value >= oldValue
            }
        let changed = chars.indices.map { k in k >= columns.count || columns[k].restingCharacter != chars[k] }
        let firstChanged = changed.lastIndex(of: true) ?? -1

        var tx = Transaction(disableActions: true)
        var animations: [(String, Animation)] = []
        var stops: [String] = []
        for k in 0..<max(chars.count, columns.count) {
            let visual = k < shown.columns.count ? shown.columns[k] : nil
            guard k < chars.count else {
                // A column leaving the text: it shrinks away showing what it shows.
                if columns[k].presence != 0 {
                    columns[k].presence = 0
                    if animate, let v = visual {
                        animations.append(
                            (presenceKey(k), try style.spring.animation(KeyPath(stringLiteral: presenceKey(k)), from: v.presence, to: 0, begin: begin)))
                    } else {
                        stops.append(presenceKey(k))
                    }
                }
                continue
            }
            let c = chars[k]
            let isDigit = c.isASCII && c.isNumber
            let rolls: Bool =
                switch style.animationType {
                case .allNumbers: changed[k] || isDigit
                case .onlyChangedNumbers: changed[k]
                case .allAfterFirstChangedNumber: k <= firstChanged && (changed[k] || isDigit)
                case .noAnimation: false
                }
            guard let v = visual, k < columns.count else {
                // A column entering the text grows in.
                if k < columns.count { columns[k] = RollColumn(showing: c) } else { columns.append(RollColumn(showing: c)) }
                if animate {
                    columns[k].presence = 1
                    animations.append((presenceKey(k), try style.spring.animation(KeyPath(stringLiteral: presenceKey(k)), from: 0, to: 1, begin: begin)))
                }
                continue
            }
            let moving = abs(v.position - columns[k].position) > 1e-9 || v.strip != columns[k].strip
            if animate, rolls || moving {
                let (strip, from, to) = roll(from: v, to: c, up: up, throughDigits: style.rollThroughDigits, fullTurn: !changed[k] && !moving && isDigit)
                columns[k] = RollColumn(strip: strip, position: to, presence: 1)
                if from != to {
                    animations.append((positionKey(k), try style.spring.animation(KeyPath(stringLiteral: positionKey(k)), from: from, to: to, begin: begin)))
                } else {
                    stops.append(positionKey(k))
                }
            } else {
                columns[k] = RollColumn(showing: c)
                stops.append(positionKey(k))
            }
            if v.presence != 1 {
                if animate {
                    animations.append(
                        (presenceKey(k), try style.spring.animation(KeyPath(stringLiteral: presenceKey(k)), from: v.presence, to: 1, begin: begin)))
                } else {
                    stops.append(presenceKey(k))
                }
            }
        }
        for key in stops where running.contains(key) && !animations.contains(where: { $0.0 == key }) {
            tx.operations.append(.removeAnimation(layer: id, key: key))
        }
        for key in running {
            if let index = column(ofKey: key), index >= columns.count, !stops.contains(key) { tx.operations.append(.removeAnimation(layer: id, key: key)) }
        }
        tx.set(id, KeyPath(stringLiteral: RollingNumber.stateKey), RollColumns(columns: columns).value)
        tx.set(id, "value", .number(request.value))
        for (key, animation) in animations { tx.addAnimation(animation, forKey: key, to: id) }
        return tx
    }

    /// The strip and window positions that take a column from what it shows to `c`:
    /// the visible characters stay where they are, then the window moves through the
    /// digits between (or straight) to `c`, upwards or downwards.
    static func roll(from v: RollColumn, to c: Character, up: Bool, throughDigits: Bool, fullTurn: Bool) -> (strip: [Character], from: Double, to: Double) {
        let (first, offset, next) = v.visible
        let head = next.map { [first, $0] } ?? [first]
        let last = head.last!
        func digit(_ ch: Character) -> Int? { ch.isASCII ? ch.wholeNumberValue : nil }
        var between: [Character] = []
        if throughDigits, let a = digit(up ? last : first), let b = digit(c) {
            var steps = up ? (b - a + 10) % 10 : (a - b + 10) % 10
            if steps == 0, fullTurn { steps = 10 }
            between = (1...max(steps, 1)).map { i in Character(String(((up ? a + i : a - i) % 10 + 10) % 10)) }
            if steps == 0 { between = [] }
        } else if c != (up ? last : first) || fullTurn {
            between = [c]
        }
        if up {
            return (head + between, offset, Double(head.count - 1 + between.count))
        }
        let below = Array(between.reversed())
        return (below + head, Double(below.count) + offset, 0)
    }
}
