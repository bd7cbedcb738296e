import Foundation
import VitrineCore
import VitrineDaemon
import VitrineKeyboard
import VitrineOutput
import VitrineOutputSet
import VitrineProtocol
import VitrineRaster
import VitrineRender

/// `vitrine-bench frame`: whole frames of a reference kiosk scene at 1080p — a full
/// repaint, a frame in which only a large number's digits change, frames with a loading
/// spinner (a replicator) turning and a progress ring filling, frames of a card flipping in
/// perspective, frames of a full-screen push transition and frames of the on-screen keyboard
/// sliding in over the page — each beside a memcpy of one frame (the bandwidth floor of any
/// frame), as JSON lines.
///
///     vitrine-bench frame [--quick] [--cold] [--repetitions N] [--write-frames DIR] [full|digits|spinner|flip|push|osk]
///
/// `--cold` adds `frame.full_repaint_cold`: full repaints with the renderer's shadow and
/// gradient caches emptied before each.
/// `--repetitions` (default 41, 9 with `--quick`) is for profiling; `--write-frames`
/// saves the last frame of each bench as `DIR/<bench>.png`, to compare the pixels of two
/// builds; a name runs only the benches whose name contains it.
func runFrameBenchmarks(_ options: [String]) {
    func value(_ option: String) -> String? {
        options.firstIndex(of: option).flatMap { $0 + 1 < options.count ? options[$0 + 1] : nil }
    }
    let repetitions = value("--repetitions").flatMap { Int($0) }.map { max(1, $0) } ?? (options.contains("--quick") ? 9 : 41)
    let frames = value("--write-frames")
    let only = options.enumerated().filter { i, option in
        !option.hasPrefix("--") && (i == 0 || !["--repetitions", "--write-frames"].contains(options[i - 1]))
    }.map(\.element)
    func runs(_ name: String) -> Bool { only.isEmpty || only.contains(where: name.contains) }
    let scene = Scene()
    StandardKinds.register(in: scene)
    try! scene.addRoot(id: "root", output: "bench", size: Size(width: 1920, height: 1080))
    try! SceneDescription(json: JSON(parsing: Data(kioskSceneJSON().utf8))).apply(to: scene, root: "root", at: 0)
    let output = try! HeadlessOutput(width: 1920, height: 1080, bufferCount: 1)
    let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
    var time = 0.0

    let memcpy = memcpyMilliseconds(bytes: 1920 * 1080 * 4, repetitions: repetitions)
    let full = median(
        (0..<(runs("frame.full_repaint") ? repetitions : 1)).map { _ in
            time += 1.0 / 60
            pipeline.invalidate()
            return milliseconds { _ = try! pipeline.render(scene.renderTree(root: "root", at: time)) }
        })
    if runs("frame.full_repaint") {
        report("frame.full_repaint", full, memcpy)
        if let frames { try! output.frontBuffer!.writePNG(to: "\(frames)/frame.full_repaint.png") }
    }
    if options.contains("--cold") {
        // The same with the renderer's shadow and gradient caches emptied first: what a
        // frame costs when every shadow changed shape (the layouts and glyphs stay cached).
        let cold = median(
            (0..<repetitions).map { _ in
                time += 1.0 / 60
                pipeline.invalidate()
                pipeline.renderer.shadows.removeAll()
                pipeline.renderer.gradients.removeAll()
                return milliseconds { _ = try! pipeline.render(scene.renderTree(root: "root", at: time)) }
            })
        report("frame.full_repaint_cold", cold, memcpy)
    }

    if runs("frame.digits_only") {
        digitsOnly(scene, pipeline, &time, memcpy, repetitions)
        if let frames { try! output.frontBuffer!.writePNG(to: "\(frames)/frame.digits_only.png") }
    }
    if runs("frame.flip") {
        flip(scene, pipeline, &time, memcpy, repetitions)
        if let frames { try! output.frontBuffer!.writePNG(to: "\(frames)/frame.flip.png") }
    }
    if runs("frame.spinner") {
        spinner(scene, pipeline, &time, memcpy, repetitions)
        if let frames { try! output.frontBuffer!.writePNG(to: "\(frames)/frame.spinner.png") }
        progressRing(scene, pipeline, &time, memcpy, repetitions)
        if let frames { try! output.frontBuffer!.writePNG(to: "\(frames)/frame.spinner_ring.png") }
    }
    if runs("frame.osk_slide") {
        keyboardSlide(scene, pipeline, &time, memcpy, repetitions)
        if let frames { try! output.frontBuffer!.writePNG(to: "\(frames)/frame.osk_slide.png") }
    }
    if runs("frame.push") {
        push(scene, pipeline, &time, memcpy, repetitions)
        if let frames { try! output.frontBuffer!.writePNG(to: "\(frames)/frame.push.png") }
    }
}

/// Frames of a push transition of the whole screen (CATransition on the root): the number
/// changes and the new screen slides in from the right, pushing the old one out, over as
/// many frames as are timed — every frame repaints the screen: the old one composited from
/// its snapshot, the new one drawn where it has come in.
private func push(_ scene: Scene, _ pipeline: FramePipeline, _ time: inout Double, _ memcpy: Double, _ repetitions: Int) {
    var tx = Transaction(disableActions: true)
    tx.set("number", "string", .string("245 700"))
    let duration = Double(repetitions + 1) / 60
    tx.addAnimation(.transition(Transition(.push, direction: .fromRight), duration: duration), forKey: Animation.transitionKey, to: "root")
    try! scene.commit(tx, at: time)
    let frames = animatedFrames(scene, pipeline, &time, repetitions, maximumPixels: 1920 * 1080)
    report("frame.push", frames, memcpy)
}

/// Frames of the on-screen keyboard (the "us" layout, the default theme, 432 pixels high)
/// sliding in over the kiosk, as the daemon builds it, over as many frames as are timed:
/// each repaints the keyboard where it is now and the page it uncovers.
private func keyboardSlide(_ scene: Scene, _ pipeline: FramePipeline, _ time: inout Double, _ memcpy: Double, _ repetitions: Int) {
    var theme = KeyboardTheme()
    theme.duration = Double(repetitions + 1) / 60
    theme.timing = .linear
    let output = Size(width: 1920, height: 1080)
    let size = Size(width: 1920, height: theme.height(onOutputOfHeight: 1080))
    let model = KeyboardModel(layouts: [try! KeyboardLayout(named: "us")], size: size, spacing: theme.spacing, timing: KeyboardTiming())
    var view = KeyboardView(theme: theme)
    try! scene.commit(view.build(model, under: "root", output: output), at: time)
    try! scene.commit(view.slide(shown: true, size: size, output: output), at: time)
    let frames = animatedFrames(scene, pipeline, &time, repetitions, maximumPixels: 1920 * 1080)
    report("frame.osk_slide", frames, memcpy)
    try! scene.commit(view.remove(), at: time)
}

/// Frames of a card flipping in the kiosk's top right corner: two one-sided faces (360×200,
/// the front with a line of text) turning about y under a stage with m34 = −1/1000, a turn
/// a second; each face seen in perspective is drawn in its plane offscreen and mapped into
/// the frame, and the damage is the old and new projected boxes.
private func flip(_ scene: Scene, _ pipeline: FramePipeline, _ time: inout Double, _ memcpy: Double, _ repetitions: Int) {
    var tx = Transaction(disableActions: true)
    tx.add(
        layer: "flip-stage", parent: "root",
        properties: [
            "bounds": .rect(Rect(x: 0, y: 0, width: 440, height: 220)), "position": .point(Point(x: 1600, y: 130)),
            "sublayerTransform": .transform3D(Transform3D(perspective: 1000)),
        ])
    for (face, color, start) in [
        ("flip-front", Color(red: 0.18, green: 0.44, blue: 0.82), 0.0), ("flip-back", Color(red: 0.78, green: 0.27, blue: 0.24), -Double.pi),
    ] {
        tx.add(
            layer: face, parent: "flip-stage",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 360, height: 200)), "position": .point(Point(x: 220, y: 110)),
                "cornerRadius": .number(18), "backgroundColor": .color(color), "doubleSided": .bool(false),
            ])
        var turn = Animation.basic("transform.rotation.y", from: .number(start), to: .number(start + .pi), duration: 1)
        turn.timing.repeatCount = .infinity
        tx.addAnimation(turn, to: face)
    }
    tx.add(
        layer: "flip-label", kind: "text", parent: "flip-front",
        properties: [
            "bounds": .rect(Rect(x: 0, y: 0, width: 320, height: 60)), "position": .point(Point(x: 180, y: 100)), "string": .string("Platform 4"),
            "fontSize": .number(44), "alignmentMode": .string("center"), "foregroundColor": .color(.white),
        ])
    try! scene.commit(tx, at: time)
    time += 0.1
    let frames = animatedFrames(scene, pipeline, &time, repetitions, maximumPixels: 480 * 300)
    report("frame.flip", frames, memcpy)
    var remove = Transaction(disableActions: true)
    remove.remove(layer: "flip-stage")
    try! scene.commit(remove, at: time)
}

/// Frames in which only the large number's last digits change.
private func digitsOnly(_ scene: Scene, _ pipeline: FramePipeline, _ time: inout Double, _ memcpy: Double, _ repetitions: Int) {
    let digits = digitFrames(scene, pipeline, &time, repetitions, screenPixels: 1920 * 1080)
    report("frame.digits_only", digits, memcpy)
}

/// The median time of `repetitions` frames of the kiosk, 1/60 s apart, in each of which
/// only the large number's last digit changes (from 245 700 on): each must repaint less
/// than a quarter of the screen's `screenPixels`.
func digitFrames(_ scene: Scene, _ pipeline: FramePipeline, _ time: inout Double, _ repetitions: Int, screenPixels: Int) -> Double {
    var value = 245_699
    return median(
        (0..<repetitions).map { _ in
            time += 1.0 / 60
            value += 1
            var tx = Transaction(disableActions: true)
            tx.set("number", "string", .string(grouped(value)))
            try! scene.commit(tx, at: time)
            return milliseconds {
                _ = scene.advance(to: time)
                let report = try! pipeline.render(scene.renderTree(root: "root", at: time))
                precondition(report.presented && report.repaintedPixels < screenPixels / 4)
            }
        })
}

/// Frames of the kiosk with a loading spinner turning in its corner: a replicator of 12
/// bars whose fade is delayed a twelfth of a second per copy, so every bar changes every
/// frame and the damage is the spinner's box.
private func spinner(_ scene: Scene, _ pipeline: FramePipeline, _ time: inout Double, _ memcpy: Double, _ repetitions: Int) {
    var fade = Animation.basic("opacity", from: .number(1), to: .number(0.2), duration: 1)
    fade.timing.repeatCount = .infinity
    var tx = Transaction(disableActions: true)
    tx.add(
        layer: "spinner", kind: LayerKind.replicatorName, parent: "root",
        properties: [
            "bounds": .rect(Rect(x: 0, y: 0, width: 96, height: 96)), "position": .point(Point(x: 1800, y: 110)),
            "instanceCount": .number(12), "instanceTransform": .transform(AffineTransform(rotationAngle: .pi / 6)),
            "instanceDelay": .number(1.0 / 12),
        ])
    tx.add(
        layer: "spinner-bar", parent: "spinner",
        properties: [
            "bounds": .rect(Rect(x: 0, y: 0, width: 8, height: 26)), "position": .point(Point(x: 48, y: 15)), "cornerRadius": .number(4),
            "backgroundColor": .color(.white), "opacity": .number(0.2),
        ])
    tx.addAnimation(fade, to: "spinner-bar")
    try! scene.commit(tx, at: time)
    // A second in, every copy's fade has begun.
    time += 1
    let frames = animatedFrames(scene, pipeline, &time, repetitions, maximumPixels: 100 * 100)
    report("frame.spinner", frames, memcpy)
}

/// The spinner's frames with a progress ring beside it: a shape layer's circle stroked
/// 8 px wide whose `strokeEnd` runs 0 → 1 every two seconds.
private func progressRing(_ scene: Scene, _ pipeline: FramePipeline, _ time: inout Double, _ memcpy: Double, _ repetitions: Int) {
    let circle = "M48 12 C67.88 12 84 28.12 84 48 C84 67.88 67.88 84 48 84 C28.12 84 12 67.88 12 48 C12 28.12 28.12 12 48 12 Z"
    var fill = Animation.basic("strokeEnd", from: .number(0), to: .number(1), duration: 2)
    fill.timing.repeatCount = .infinity
    var tx = Transaction(disableActions: true)
    tx.add(
        layer: "ring", kind: "shape", parent: "root",
        properties: [
            "bounds": .rect(Rect(x: 0, y: 0, width: 96, height: 96)), "position": .point(Point(x: 1680, y: 110)), "path": .string(circle),
            "fillColor": .color(.clear), "strokeColor": .color(Color(red: 1, green: 0.82, blue: 0.4)), "lineWidth": .number(8),
            "lineCap": .string("round"),
        ])
    tx.addAnimation(fill, to: "ring")
    try! scene.commit(tx, at: time)
    time += 0.5
    let frames = animatedFrames(scene, pipeline, &time, repetitions, maximumPixels: 250 * 160)
    report("frame.spinner_ring", frames, memcpy)
}

/// The median time of `repetitions` frames 1/60 s apart, after one drawn at `time`, while
/// the scene animates: each must present and repaint at most `maximumPixels`.
private func animatedFrames(_ scene: Scene, _ pipeline: FramePipeline, _ time: inout Double, _ repetitions: Int, maximumPixels: Int) -> Double {
    _ = scene.advance(to: time)
    _ = try! pipeline.render(scene.renderTree(root: "root", at: time))
    return median(
        (0..<repetitions).map { _ in
            time += 1.0 / 60
            return milliseconds {
                _ = scene.advance(to: time)
                let report = try! pipeline.render(scene.renderTree(root: "root", at: time))
                precondition(report.presented && report.repaintedPixels <= maximumPixels)
            }
        })
}

func report(_ name: String, _ ms: Double, _ memcpy: Double) {
    print(
        "{\"bench\":\"\(name)\",\"vitrine_ms\":\(String(format: "%.3f", ms)),\"memcpy_ms\":\(String(format: "%.3f", memcpy)),\"ratio\":\(String(format: "%.2f", ms / memcpy))}"
    )
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

func milliseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// The time to copy one frame between two buffers the size of the screen.
func memcpyMilliseconds(bytes: Int, repetitions: Int) -> Double {
    let a = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
    let b = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
    defer { a.deallocate(); b.deallocate() }
    memset(a, 0x5a, bytes)
    memset(b, 0, bytes)
    return median((0..<repetitions).map { _ in milliseconds { memcpy(b, a, bytes) } })
}

func grouped(_ n: Int) -> String {
    let s = String(n)
    var out = ""
    for (i, c) in s.enumerated() {
        if i > 0, (s.count - i) % 3 == 0 { out.append(" ") }
        out.append(c)
    }
    return out
}

/// The reference kiosk at `scale` (1: 1920×1080, 2: 3840×2160, every length doubled): a
/// background gradient, six rounded cards with shadows, three text blocks and a large
/// number, as JSON layers.
func kioskSceneJSON(scale: Int = 1) -> String {
    let k = scale
    let cards = (0..<6).map { i in
        let x = (330 + (i % 3) * 630) * k, y = (420 + (i / 3) * 330) * k
        return ##"{"id": "card\##(i)", "properties": {"bounds": [0, 0, \##(560 * k), \##(280 * k)], "position": [\##(x), \##(y)], "##
            + ##""cornerRadius": \##(28 * k), "backgroundColor": "#ffffff22", "shadowOpacity": 0.45, "shadowRadius": \##(18 * k), "shadowOffset": [0, \##(10 * k)]}}"##
    }.joined(separator: ",\n  ")
    return """
        {"layers": [
          {"id": "background", "kind": "gradient", "properties": {"bounds": [0, 0, \(1920 * k), \(1080 * k)], "position": [\(960 * k), \(540 * k)],
             "colors": ["#0f2027", "#203a43", "#2c5364"], "startPoint": [0, 0], "endPoint": [1, 1]}},
          {"id": "title", "kind": "text", "properties": {"bounds": [0, 0, \(1200 * k), \(80 * k)], "position": [\(660 * k), \(80 * k)],
             "string": "Central Station — Departures", "fontSize": \(56 * k), "foregroundColor": "white"}},
          {"id": "subtitle", "kind": "text", "properties": {"bounds": [0, 0, \(1200 * k), \(50 * k)], "position": [\(660 * k), \(150 * k)],
             "string": "Updated every minute. Platforms may change at short notice.", "fontSize": \(28 * k), "foregroundColor": "#b0c4de"}},
          {"id": "footer", "kind": "text", "properties": {"bounds": [0, 0, \(1800 * k), \(40 * k)], "position": [\(960 * k), \(1040 * k)],
             "string": "Free Wi-Fi: Station-Guest · Lost property: desk 4 · Tickets: hall A", "fontSize": \(24 * k), "foregroundColor": "#dddddd"}},
          \(cards),
          {"id": "number", "kind": "text", "properties": {"bounds": [0, 0, \(560 * k), \(160 * k)], "position": [\(960 * k), \(420 * k)],
             "string": "245 699", "fontSize": \(120 * k), "alignmentMode": "center", "foregroundColor": "#ffd166"}}
        ]}
        """
}
