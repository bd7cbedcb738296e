import Glibc

/// A spring animation's settings where a script, a layer or the configuration leaves
/// them out: the oscillator's parameters plus the animation's duration and speed. The
/// defaults are the original RollingNumbers' spring (one second of spring time at speed
/// 0.3, damping 17, initial velocity 1), and the configuration's `[animation.spring]`
/// defaults are these.
public struct SpringSettings: Hashable, Sendable {
    /// Seconds of spring time the animation lasts; 0 lasts until the spring settles.
    public var duration = 1.0
    /// The animation's speed (0.3 plays at 30 %).
    public var speed = 0.3
    public var damping = 17.0
    /// In distances per second towards the target.
    public var initialVelocity = 1.0
    public var mass = 1.0
    public var stiffness = 100.0

    /// The defaults.
    public init() {}

    /// Settings with every value given.
    public init(duration: Double, speed: Double, damping: Double, initialVelocity: Double, mass: Double, stiffness: Double) {
        (self.duration, self.speed, self.damping, self.initialVelocity, self.mass, self.stiffness) =
            (duration, speed, damping, initialVelocity, mass, stiffness)
    }

    /// The oscillator; throws when the parameters describe none.
    public func spring() throws(CoreError) -> Spring {
        try Spring(mass: mass, stiffness: stiffness, damping: damping, initialVelocity: initialVelocity)
    }
}

/// A damped harmonic oscillator as CASpringAnimation models it, solved in closed form.
///
/// `progress(at:)` runs from 0 at t = 0 towards 1; `initialVelocity` is in units of the
/// whole distance per second, positive towards the target.
public struct Spring: Hashable, Sendable {
    public var mass: Double
    public var stiffness: Double
    public var damping: Double
    public var initialVelocity: Double

    /// Core Animation's spring: mass 1, stiffness 100, damping 10, initial velocity 0.
    public static let coreAnimation = try! Spring()

    /// CA's defaults: mass 1, stiffness 100, damping 10, initial velocity 0.
    public init(mass: Double = 1, stiffness: Double = 100, damping: Double = 10, initialVelocity: Double = 0) throws(CoreError) {
        guard mass > 0, stiffness > 0, damping >= 0, [mass, stiffness, damping, initialVelocity].allSatisfy(\.isFinite),
            mass <= 1e6, stiffness <= 1e9, damping <= 1e9, abs(initialVelocity) <= 1e6
        else {
            throw .invalidAnimation("a spring needs mass > 0, stiffness > 0 and damping ≥ 0, all finite and of sane size")
        }
        (self.mass, self.stiffness, self.damping, self.initialVelocity) = (mass, stiffness, damping, initialVelocity)
    }

    /// The spring that SwiftUI and iOS 17's `CASpringAnimation(perceptualDuration:bounce:)`
    /// describe: mass 1, stiffness (2π / duration)², and damping from `bounce` (0 is
    /// critically damped, towards 1 bouncier, negative values overdamped).
    public init(perceptualDuration duration: Double, bounce: Double) throws(CoreError) {
        guard duration > 0, duration.isFinite, bounce > -1, bounce < 1 else {
            throw .invalidAnimation("perceptualDuration must be > 0 and bounce within (−1, 1)")
        }
        let stiffness = pow(2 * .pi / duration, 2)
        let damping = bounce >= 0 ? 4 * .pi * (1 - bounce) / duration : 4 * .pi / (duration * (1 + bounce))
        try self.init(mass: 1, stiffness: stiffness, damping: damping, initialVelocity: 0)
    }

    /// Undamped angular frequency ω₀ = √(k/m).
    public var naturalFrequency: Double { (stiffness / mass).squareRoot() }
    /// ζ = c / (2√(km)): < 1 underdamped, 1 critical, > 1 overdamped.
    public var dampingRatio: Double { damping / (2 * (stiffness * mass).squareRoot()) }

    /// The fraction of the way to the target at `t` seconds (overshoots past 1 when
    /// underdamped).
    public func progress(at t: Double) -> Double {
        t <= 0 ? 0 : 1 - displacement(at: t).position
    }

    /// The speed towards the target at `t`, in distances per second.
    public func velocity(at t: Double) -> Double {
        t <= 0 ? initialVelocity : -displacement(at: t).velocity
    }

    /// x(t) with x(0) = 1, x'(0) = −v₀: how far from the target, and how fast x changes.
    private func displacement(at t: Double) -> (position: Double, velocity: Double) {
        let w0 = naturalFrequency, zeta = dampingRatio, v0 = initialVelocity
        if abs(zeta - 1) < 1e-9 {
            let b = w0 - v0
            let e = exp(-w0 * t)
            return (e * (1 + b * t), e * (b - w0 * (1 + b * t)))
        }
        if zeta < 1 {
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            let b = (zeta * w0 - v0) / wd
            let e = exp(-zeta * w0 * t)
            let (s, c) = (sin(wd * t), cos(wd * t))
            let x = e * (c + b * s)
            return (x, -zeta * w0 * x + e * (-wd * s + b * wd * c))
        }
        let root = w0 * (zeta * zeta - 1).squareRoot()
        let r1 = -zeta * w0 + root, r2 = -zeta * w0 - root
        let c1 = (-v0 - r2) / (r1 - r2), c2 = 1 - c1
        let e1 = exp(r1 * t), e2 = exp(r2 * t)
        return (c1 * e1 + c2 * e2, c1 * r1 * e1 + c2 * r2 * e2)
    }

    /// How long the motion takes to come to rest: the first time after which it stays
    /// within 0.1 % of the distance of the target, with a speed under 1 % of it per second.
    public var settlingDuration: Double {
        let step = 1.0 / 240
        var settledSince: Double? = nil
        var t = 0.0
        while t < 120 {
            let (x, v) = displacement(at: t)
            if abs(x) < 1e-3 && abs(v) < 1e-2 {
                if settledSince == nil { settledSince = t }
                if t - settledSince! > 0.25 { return (settledSince! * 1000).rounded(.up) / 1000 }
            } else {
                settledSince = nil
            }
            t += step
        }
        return 120
    }
}
