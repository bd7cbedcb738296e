import Foundation
import VitrineCore

/// `vitrine-bench core`: the cost of one frame of the model — advancing time, evaluating
/// the presentation of every layer into a render tree, and computing damage. A render
/// tree reuses the previous one's nodes but for animated and changed subtrees;
/// `core.large.shape_commit_every_frame` measures the tree built whole.
func runCoreBenchmarks(_ options: [String]) {
    let frames = options.contains("--quick") ? 200 : 2_000
    report("core.kiosk", scene: kioskScene(), frames: frames, layers: 50, animations: 10)
    report("core.large", scene: largeScene(layers: 10_000, animations: 1_000), frames: frames / 10, layers: 10_000, animations: 1_000)
    report(
        "core.large.value_commit_every_frame", scene: largeScene(layers: 10_000, animations: 1_000), frames: frames / 10,
        layers: 10_000, animations: 1_000, commit: .value)
    report(
        "core.large.shape_commit_every_frame", scene: largeScene(layers: 10_000, animations: 1_000), frames: frames / 10,
        layers: 10_000, animations: 1_000, commit: .shape)
    reportHitTest(rounds: frames / 10)
}

/// `core.large.hit_test`: one hit test of 10 000 layers (100 groups of 100×100 points with
/// 99 small layers each) at a point on the root's background between the groups, where
/// every layer is looked at (median of five runs of `rounds`).
private func reportHitTest(rounds: Int) {
    var configuration = Scene.Configuration()
    configuration.maximumLayers = 10_010
    let scene = Scene(configuration: configuration)
    try! scene.addRoot(id: "screen", output: "bench", size: Size(width: 1920, height: 1080))
    var tx = Transaction(disableActions: true)
    for g in 0..<100 {
        tx.add(
            layer: "g\(g)", parent: "screen",
            properties: ["bounds": rect(0, 0, 100, 100), "position": point(Double(g % 10) * 150 + 60, Double(g / 10) * 100 + 60)])
        for i in 0..<99 {
            tx.add(
                layer: "g\(g).\(i)", parent: "g\(g)",
                properties: ["bounds": rect(0, 0, 8, 8), "position": point(Double(i % 10) * 10 + 5, Double(i / 10) * 10 + 5)])
        }
    }
    try! scene.commit(tx, at: 0)
    let background = Point(x: 1900, y: 1000), time = 1.0
    precondition(scene.hitTest(background, root: "screen", at: time)?.layer == "screen", "the point must be on the root's background")
    var each: [Double] = []
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<rounds { _ = scene.hitTest(background, root: "screen", at: time) }
        each.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(rounds) / 1000)
    }
    print("{\"bench\":\"core.large.hit_test\",\"layers\":10001,\"us_per_hit_test\":\(fmt(each.sorted()[2]))}")
}

/// What a client commits before every frame.
private enum FrameCommit {
    case none
    /// A layer's colour, without animation: the tree rebuilds that layer's subtree.
    case value
    /// A layer added or removed: the tree is built whole.
    case shape
}

/// Times `frames` frames at 60 Hz and prints microseconds per frame (median of five runs).
/// With `commit` a transaction is committed (untimed) before each frame, as a client
/// changing the scene at 60 Hz would.
private func report(_ name: String, scene: Scene, frames: Int, layers: Int, animations: Int, commit: FrameCommit = .none) {
    var presentation: [Double] = []
    var damage: [Double] = []
    var advance: [Double] = []
    var time = 1.0
    var committed = 0
    var previous = try! scene.renderTree(root: "screen", at: time)
    for _ in 0..<5 {
        var presentationTotal = 0.0, damageTotal = 0.0, advanceTotal = 0.0
        for _ in 0..<frames {
            time += 1.0 / 60
            var tx = Transaction(disableActions: true)
            switch commit {
            case .none: break
            case .value:
                tx.set("g\(committed % 100).\(committed % 99)", "backgroundColor", .color(Color(red: Double(committed % 7) / 7, green: 0.5, blue: 1)))
            case .shape:
                if committed % 2 == 0 { tx.add(layer: "extra", parent: "g0") } else { tx.remove(layer: "extra") }
            }
            if commit != .none { try! scene.commit(tx, at: time) }
            committed += 1
            let start = DispatchTime.now().uptimeNanoseconds
            _ = scene.advance(to: time)
            advanceTotal += Double(DispatchTime.now().uptimeNanoseconds - start)
            let tree = try! scene.renderTree(root: "screen", at: time)
            let middle = DispatchTime.now().uptimeNanoseconds
            let rects = tree.damage(since: previous)
            let end = DispatchTime.now().uptimeNanoseconds
            precondition(!rects.isEmpty, "animations must produce damage")
            previous = tree
            presentationTotal += Double(middle - start)
            damageTotal += Double(end - middle)
        }
        presentation.append(presentationTotal / Double(frames) / 1000)
        damage.append(damageTotal / Double(frames) / 1000)
        advance.append(advanceTotal / Double(frames) / 1000)
    }
    let p = presentation.sorted()[2], d = damage.sorted()[2], a = advance.sorted()[2]
    print(
        "{\"bench\":\"\(name)\",\"layers\":\(layers),\"animations\":\(animations),"
            + "\"us_per_frame\":\(fmt(p)),\"advance_us\":\(fmt(a)),\"damage_us_per_frame\":\(fmt(d))}")
}

private func fmt(_ v: Double) -> String { String(format: "%.2f", v) }

private func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Value { .rect(Rect(x: x, y: y, width: w, height: h)) }
private func point(_ x: Double, _ y: Double) -> Value { .point(Point(x: x, y: y)) }

private func forever(_ a: Animation, duration: Double, autoreverses: Bool = true) -> Animation {
    var a = a
    a.timing.duration = duration
    a.timing.repeatCount = .infinity
    a.timing.autoreverses = autoreverses
    return a
}

/// A kiosk screen: background, header, six cards with a title, a value and an icon each,
/// a ticker and a clock — 50 layers, 10 of them animating.
private func kioskScene() -> Scene {
    let scene = Scene()
    try! scene.addRoot(id: "screen", output: "bench", size: Size(width: 1920, height: 1080))
    var tx = Transaction(disableActions: true)
    tx.add(
        layer: "background", parent: "screen",
        properties: ["bounds": rect(0, 0, 1920, 1080), "position": point(960, 540), "backgroundColor": .color(Color(red: 0.1, green: 0.1, blue: 0.15))])
    tx.add(layer: "header", parent: "background", properties: ["bounds": rect(0, 0, 1920, 120), "position": point(960, 60)])
    for i in 0..<6 {
        let x = 340 + Double(i % 3) * 620, y = 360 + Double(i / 3) * 420
        tx.add(
            layer: "card\(i)", parent: "background",
            properties: [
                "bounds": rect(0, 0, 560, 360), "position": point(x, y), "cornerRadius": .number(24),
                "shadowOpacity": .number(0.4), "shadowRadius": .number(12),
                "backgroundColor": .color(Color(red: 0.2, green: 0.2, blue: 0.3)),
            ])
        for part in ["title", "value", "icon", "badge", "bar", "caption"] {
            tx.add(layer: "card\(i).\(part)", parent: "card\(i)", properties: ["bounds": rect(0, 0, 200, 40), "position": point(150, 60)])
        }
    }
    for id in ["ticker", "clock", "logo"] {
        tx.add(layer: id, parent: "header", properties: ["bounds": rect(0, 0, 300, 80), "position": point(200, 60)])
    }
    for i in 0..<6 {
        tx.addAnimation(forever(.basic("opacity", from: .number(1), to: .number(0.5)), duration: 2), to: "card\(i).badge")
    }
    tx.addAnimation(forever(.basic("position.x", from: .number(1900), to: .number(-300)), duration: 8, autoreverses: false), to: "ticker")
    tx.addAnimation(forever(.spring("transform.scale", from: .number(1), to: .number(1.1), spring: try! Spring(damping: 17)), duration: 1), to: "card0.value")
    tx.addAnimation(
        forever(.keyframe("backgroundColor", Keyframes(values: [.color(.white), .color(Color(red: 1, green: 0, blue: 0)), .color(.white)])), duration: 3),
        to: "card1")
    tx.addAnimation(forever(.basic("transform.rotation.z", from: .number(0), to: .number(2 * .pi)), duration: 4, autoreverses: false), to: "logo")
    try! scene.commit(tx, at: 0)
    _ = scene.advance(to: 0)
    return scene
}

/// `layers` layers in groups of 100 under 100 parents, one in ten animating.
private func largeScene(layers: Int, animations: Int) -> Scene {
    var configuration = Scene.Configuration()
    configuration.maximumLayers = layers + 10
    let scene = Scene(configuration: configuration)
    try! scene.addRoot(id: "screen", output: "bench", size: Size(width: 1920, height: 1080))
    var tx = Transaction(disableActions: true)
    let groups = 100, perGroup = (layers - groups) / groups
    for g in 0..<groups {
        tx.add(
            layer: "g\(g)", parent: "screen",
            properties: ["bounds": rect(0, 0, 192, 108), "position": point(96 + Double(g % 10) * 192, 54 + Double(g / 10) * 108)])
        for i in 0..<perGroup {
            tx.add(
                layer: "g\(g).\(i)", parent: "g\(g)",
                properties: [
                    "bounds": rect(0, 0, 10, 10), "position": point(Double(i % 10) * 19, Double(i / 10) * 10),
                    "backgroundColor": .color(Color(red: 0.5, green: 0.5, blue: 1)),
                ])
        }
    }
    var added = 0
    outer: for g in 0..<groups {
        for i in stride(from: 0, to: perGroup, by: 10) {
            guard added < animations else { break outer }
            let animation: Animation =
                switch added % 4 {
                case 0: .basic("position.y", by: .number(20))
                case 1: .basic("opacity", from: .number(1), to: .number(0.2))
                case 2: .spring("transform.rotation.z", from: .number(0), to: .number(1), spring: try! Spring())
                default: .basic("backgroundColor", to: .color(Color(red: 1, green: 0.5, blue: 0)))
                }
            tx.addAnimation(forever(animation, duration: 1.5), to: "g\(g).\(i)")
            added += 1
        }
    }
    try! scene.commit(tx, at: 0)
    _ = scene.advance(to: 0)
    return scene
}
