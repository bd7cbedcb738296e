import Foundation
import PropertyBased
import Testing
import VitrineCore

// Shared helpers for the VitrineCore tests: scene set-up, tolerant comparisons, an
// independent cubic Bézier solver and a snapshot of a whole scene for atomicity checks.

// Foundation and the standard library have types of these names too; in the tests they
// mean VitrineCore's.
typealias AffineTransform = VitrineCore.AffineTransform
typealias KeyPath = VitrineCore.KeyPath

/// The id of the root layer every test scene has.
let rootID = "screen"

/// A scene with one output root of `size`, no animations and no pending events.
func makeScene(width: Double = 800, height: Double = 600) -> Scene {
    let scene = Scene()
    try! scene.addRoot(id: rootID, output: "TEST-1", size: Size(width: width, height: height))
    return scene
}

/// Builds a transaction with `build` and commits it at `time`.
@discardableResult
func commit(
    _ scene: Scene, at time: Double, _ transaction: Transaction = Transaction(),
    _ build: (inout Transaction) -> Void
) throws(CoreError) -> UInt64 {
    var tx = transaction
    build(&tx)
    return try scene.commit(tx, at: time)
}

/// A scene with the root and one plain layer `id` (bounds 100×100 at (50, 50)) under it,
/// events already taken.
func makeSceneWithLayer(_ id: String = "box", properties: [String: Value] = [:]) -> Scene {
    let scene = makeScene()
    var props: [String: Value] = [
        "bounds": .rect(Rect(x: 0, y: 0, width: 100, height: 100)),
        "position": .point(Point(x: 50, y: 50)),
    ]
    props.merge(properties) { $1 }
    try! commit(scene, at: 0) { $0.add(layer: id, parent: rootID, properties: props) }
    _ = scene.takeEvents()
    return scene
}

/// A transaction that does not animate implicitly.
var quiet: Transaction { Transaction(disableActions: true) }

// MARK: - Comparisons

/// Records an issue unless `a` and `b` differ by at most `tolerance`.
func expectClose(
    _ a: Double, _ b: Double, tolerance: Double = 1e-9, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        abs(a - b) <= tolerance, "\(a) vs \(b) (tolerance \(tolerance)) \(comment?.description ?? "")",
        sourceLocation: sourceLocation)
}

/// The numbers a value is made of, or nil for booleans, strings and dictionaries.
func numbers(_ v: Value) -> [Double]? {
    switch v {
    case .number(let x): [x]
    case .point(let p): [p.x, p.y]
    case .size(let s): [s.width, s.height]
    case .rect(let r): [r.origin.x, r.origin.y, r.size.width, r.size.height]
    case .color(let c): [c.red, c.green, c.blue, c.alpha]
    case .transform(let t): [t.a, t.b, t.c, t.d, t.tx, t.ty]
    default: nil  // booleans, strings, dictionaries, arrays
    }
}

/// The largest difference between the components of two values of one type (infinity for
/// different types, 0/∞ for equal/unequal discrete values).
func maxDifference(_ a: Value, _ b: Value) -> Double {
    guard a.type == b.type else { return .infinity }
    guard let x = numbers(a), let y = numbers(b) else { return a == b ? 0 : .infinity }
    return zip(x, y).map { abs($0 - $1) }.max() ?? 0
}

/// Records an issue unless `a` and `b` have one type and components within `tolerance`.
func expectClose(
    _ a: Value, _ b: Value, tolerance: Double = 1e-9, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        maxDifference(a, b) <= tolerance, "\(a) vs \(b) (tolerance \(tolerance)) \(comment?.description ?? "")",
        sourceLocation: sourceLocation)
}

func expectClose(
    _ a: AffineTransform, _ b: AffineTransform, tolerance: Double = 1e-9, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectClose(.transform(a), .transform(b), tolerance: tolerance, comment, sourceLocation: sourceLocation)
}

func expectClose(
    _ a: Point, _ b: Point, tolerance: Double = 1e-9, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectClose(.point(a), .point(b), tolerance: tolerance, comment, sourceLocation: sourceLocation)
}

func expectClose(
    _ a: Color, _ b: Color, tolerance: Double = 1e-9, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectClose(.color(a), .color(b), tolerance: tolerance, comment, sourceLocation: sourceLocation)
}

/// Runs `body` and records an issue unless it throws a `CoreError` with `code`.
func expectError(
    _ code: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected error \(code), nothing was thrown \(comment?.description ?? "")", sourceLocation: sourceLocation)
    } catch let error as CoreError {
        #expect(error.code == code, "got \(error) \(comment?.description ?? "")", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a CoreError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

// MARK: - Reading the scene

/// A number-valued presentation value.
func presented(_ scene: Scene, _ layer: String, _ keyPath: KeyPath, at time: Double) throws -> Double {
    try #require(try scene.presentationValue(keyPath, of: layer, at: time).number)
}

/// A number-valued model value.
func model(_ scene: Scene, _ layer: String, _ keyPath: KeyPath) throws -> Double {
    try #require(try scene.modelValue(keyPath, of: layer).number)
}

/// Everything observable about a scene's tree, values and animations (but not time).
struct SceneSnapshot: Equatable {
    struct LayerState: Equatable {
        var id: String
        var parent: String?
        var sublayers: [String]
        var model: PropertyValues
        var animations: [Scene.AnimationInfo]
        var actions: [String: ActionRule]
        var actionsFrom: String?
        var policy: ActionPolicy
        var displayKeys: Set<String>
    }

    var layers: [LayerState]
    var layerCount: Int

    init(_ scene: Scene) throws {
        var out: [LayerState] = []
        var stack = scene.rootIDs.reversed().map { $0 }
        while let id = stack.popLast() {
            let subs = try scene.sublayers(of: id)
            let rules = try scene.actionRules(of: id)
            out.append(
                LayerState(
                    id: id, parent: try scene.parent(of: id), sublayers: subs, model: try scene.modelValues(of: id),
                    animations: try scene.animations(of: id), actions: rules.actions, actionsFrom: rules.from,
                    policy: rules.policy, displayKeys: try scene.displayKeys(of: id)))
            stack.append(contentsOf: subs.reversed())
        }
        layers = out
        layerCount = scene.layerCount
    }
}

// MARK: - Independent reference formulas

/// One coordinate of the cubic Bézier with end points 0 and 1 and control values p1, p2,
/// in Bernstein form.
func bernstein(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
    let u = 1 - s
    return 3 * p1 * s * u * u + 3 * p2 * s * s * u + s * s * s
}

/// The eased progress of the cubic Bézier (c1x, c1y, c2x, c2y) at time fraction `t`,
/// solved by plain bisection (x is monotone for control x in 0…1).
func referenceProgress(_ c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double, at t: Double) -> Double {
    if t <= 0 { return 0 }
    if t >= 1 { return 1 }
    var lo = 0.0, hi = 1.0
    for _ in 0..<200 {
        let mid = (lo + hi) / 2
        if bernstein(mid, c1x, c2x) < t { lo = mid } else { hi = mid }
    }
    return bernstein((lo + hi) / 2, c1y, c2y)
}

func referenceProgress(_ f: TimingFunction, at t: Double) -> Double {
    referenceProgress(f.c1x, f.c1y, f.c2x, f.c2y, at: t)
}

/// The damped oscillator m·x'' + c·x' + k·x = 0 with x(0) = 1, x'(0) = −v₀, integrated
/// with classic RK4 at step `h`; returns 1 − x (the spring's progress) at each of `times`
/// (ascending).
func integratedSpringProgress(
    mass m: Double, stiffness k: Double, damping c: Double, initialVelocity v0: Double,
    at times: [Double], step h: Double = 1e-5
) -> [Double] {
    var x = 1.0, v = -v0, t = 0.0
    var out: [Double] = []
    func acc(_ x: Double, _ v: Double) -> Double { (-k * x - c * v) / m }
    for target in times {
        while t < target - 1e-12 {
            let dt = min(h, target - t)
            let k1x = v, k1v = acc(x, v)
            let k2x = v + 0.5 * dt * k1v, k2v = acc(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v)
            let k3x = v + 0.5 * dt * k2v, k3v = acc(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v)
            let k4x = v + dt * k3v, k4v = acc(x + dt * k3x, v + dt * k3v)
            x += dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
            t += dt
        }
        out.append(1 - x)
    }
    return out
}

/// The seed property checks draw their inputs from: fixed, so that every run (and CI) checks
/// the same inputs. `VITRINE_PROPERTY_SEED=random` draws fresh ones (the seed is printed),
/// `VITRINE_PROPERTY_SEED=<seed>` replays a printed seed.
let propertySeed: Xoshiro = {
    switch ProcessInfo.processInfo.environment["VITRINE_PROPERTY_SEED"] {
    case "random"?:
        let fresh = Xoshiro()
        print("property seed \(fresh.currentSeed) (VITRINE_PROPERTY_SEED=\(fresh.currentSeed) replays it)")
        return fresh
    case let text?:
        guard let given = Xoshiro(seed: text) else { fatalError("VITRINE_PROPERTY_SEED=\(text) is not a seed this run printed") }
        return given
    case nil:
        return Xoshiro(seed: (0x5669_7472_696E_6521, 0x2026_1121_0000_0001, 0x0123_4567_89AB_CDEF, 0x0F1E_2D3C_4B5A_6978))
    }
}()

/// Checks `body` against `count` inputs drawn from `generators`, from `propertySeed` (the
/// swift-property-based `propertyCheck` draws from a fresh seed each run). Every issue the
/// body records names the input it failed on.
func seededCheck<each Value, each Shrinks: SendableSequenceType>(
    count: Int = 100, input generators: repeat Generator<each Value, each Shrinks>,
    sourceLocation: SourceLocation = #_sourceLocation,
    perform body: (repeat each Value) async throws -> Void
) async {
    var rng = propertySeed
    for n in 0..<count {
        let values = (repeat (each generators).run(using: &rng))
        let input: Comment = "input \(n) of \(count): \(values)"
        let naming = IssueHandlingTrait.compactMapIssues { issue in
            var named = issue
            named.comments.append(input)
            return named
        }
        // The scope runs the check at once, on this task: nothing is shared across tasks.
        await withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let check = { () async throws in try await body(repeat each values) }
            do {
                try await naming.provideScope(for: Test.current!, testCase: Test.Case.current) { try await check() }
            } catch {
                Issue.record("\(input): \(error)", sourceLocation: sourceLocation)
            }
        }
    }
}
