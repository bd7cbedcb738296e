import Foundation
import VitrineCore
import VitrineOutput
import VitrineOutputSet
import VitrineRaster
import VitrineRender

/// `vitrine-bench text` (after `text.paragraph`): a social wall at 1080p — 30 posts (rounded cards, an author line
/// and two or three wrapped lines of text with colour emoji: faces, skin tones, ZWJ
/// families, flags, keycaps) in three columns, scrolled by a few pixels every frame as a
/// client would scroll it — each frame beside a memcpy of one frame, as JSON lines.
///
///     vitrine-bench text [--quick]
///
/// `text.social_wall_first` is the first frame, which lays out the 60 texts and renders
/// every glyph, emoji included; `text.social_wall` a scrolled frame (every card moved: the
/// screen repainted whole, layouts and glyphs from their caches);
/// `text.social_wall_rasterized` the same with the wall rasterized (`shouldRasterize`, as
/// a scrolled view is in Core Animation: a frame copies its bitmap);
/// `text.social_wall_new_post` a rasterized scrolled frame in which one post's text
/// changes (the bitmap drawn again where that post is).
func runSocialWallBenchmarks(_ options: [String]) {
    let repetitions = options.contains("--quick") ? 9 : 61
    let scene = Scene()
    StandardKinds.register(in: scene)
    try! scene.addRoot(id: "root", output: "bench", size: Size(width: 1920, height: 1080))
    try! scene.commit(socialWall(), at: 0)
    let output = try! HeadlessOutput(width: 1920, height: 1080, bufferCount: 1)
    let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
    let memcpy = memcpyMilliseconds(bytes: 1920 * 1080 * 4, repetitions: repetitions)
    var time = 0.0
    let first = milliseconds { _ = try! pipeline.render(scene.renderTree(root: "root", at: time)) }
    report("text.social_wall_first", first, memcpy)
    var y = 0.0
    /// Frames of the wall scrolled by 4 pixels each, with `change` committed beside.
    func scrolled(_ change: (Int, inout Transaction) -> Void = { _, _ in }) -> [Double] {
        (0..<repetitions).map { frame in
            time += 1.0 / 60
            y -= 4
            var tx = Transaction(disableActions: true)
            tx.set("wall", "position", .point(Point(x: 960, y: 1600 + y)))
            change(frame, &tx)
            try! scene.commit(tx, at: time)
            return milliseconds {
                _ = scene.advance(to: time)
                let report = try! pipeline.render(scene.renderTree(root: "root", at: time))
                precondition(report.presented)
            }
        }
    }
    report("text.social_wall", median(scrolled()), memcpy)
    var rasterize = Transaction(disableActions: true)
    rasterize.set("wall", "shouldRasterize", .bool(true))
    try! scene.commit(rasterize, at: time)
    report("text.social_wall_rasterized", median(Array(scrolled().dropFirst(2))), memcpy)
    let posted = scrolled { frame, tx in tx.set("post\(frame % 30).text", "string", .string("New post \(frame) 🎉 just in")) }
    report("text.social_wall_new_post", median(posted), memcpy)
    if let index = options.firstIndex(of: "--write-frame"), index + 1 < options.count {
        try! output.frontBuffer!.writePNG(to: options[index + 1])
    }
}

/// The wall: a 1920 × 3200 layer of 30 cards.
private func socialWall() -> Transaction {
    let posts = [
        "Best concert ever 🎉🎶 thank you all! 👏🏽👏🏽", "Morning run done 🏃‍♀️ 10 km in the rain ☔️ feeling 💪",
        "Our team won the cup 🏆🇫🇷🇧🇷 what a match ⚽️", "New menu today: 🍕🍝🥗 and gelato 🍨 for dessert 😋",
        "Happy birthday Sam 🎂🎈 from all of us 👨‍👩‍👧‍👦❤️", "Room 1️⃣2️⃣ is ready — coffee ☕️ and croissants 🥐",
        "Snow day ❄️⛄️ schools closed, sledging at 2 🛷", "Thanks for 10k followers 🙏🏻✨ you are amazing 🤩",
        "Launch went well 🚀👩🏾‍🚀 next stop the moon 🌕", "Dog of the week: Biscuit 🐶🦴 loves the park 🌳",
    ]
    var tx = Transaction(disableActions: true)
    tx.add(
        layer: "wall", parent: "root",
        properties: [
            "bounds": .rect(Rect(x: 0, y: 0, width: 1920, height: 3200)), "position": .point(Point(x: 960, y: 1600)),
            "backgroundColor": .color(Color(red: 0.08, green: 0.09, blue: 0.12)),
        ])
    for i in 0..<30 {
        let (column, row) = (i % 3, i / 3)
        let card = "post\(i)"
        tx.add(
            layer: card, parent: "wall",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 600, height: 290)),
                "position": .point(Point(x: 330 + Double(column) * 630, y: 170 + Double(row) * 310)),
                "backgroundColor": .color(Color(red: 0.16, green: 0.18, blue: 0.24)), "cornerRadius": .number(16),
            ])
        tx.add(
            layer: "\(card).author", kind: "text", parent: card,
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 560, height: 40)), "position": .point(Point(x: 300, y: 40)),
                "string": .string("@guest\(i) 📍 Hall \(i % 4 + 1)"), "fontSize": .number(24),
                "foregroundColor": .color(Color(red: 0.6, green: 0.75, blue: 1)),
            ])
        tx.add(
            layer: "\(card).text", kind: "text", parent: card,
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 560, height: 200)), "position": .point(Point(x: 300, y: 170)),
                "string": .string(posts[i % posts.count] + (i >= 10 ? " #\(i) 😀" : "")), "fontSize": .number(34),
                "isWrapped": .bool(true), "foregroundColor": .color(.white),
            ])
    }
    return tx
}
