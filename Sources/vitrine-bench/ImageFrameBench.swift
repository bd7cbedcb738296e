import VitrineCodecs
import Foundation
import VitrineCore
import VitrineRaster
import VitrineRender

// vitrine-bench image (frames): what still pictures cost a frame — a 1920×1080 screen of
// 24 layers each showing a PNG (400×300, drawn at 320×240), repainted whole, and repainted
// where one layer changed colour. Only API older than the image formats is used, so that
// the same code measures a build from before them.

func runImageFrameBenchmarks(_ arguments: [String]) {
    let runs = arguments.contains("--quick") ? 20 : 200
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-bench-images-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let picture = Surface(width: 400, height: 300)
    for y in 0..<300 {
        for x in 0..<400 { picture.pixels[y * picture.stride + x] = 0xFF00_0000 | UInt32(x * 255 / 400) << 16 | UInt32(y * 255 / 300) << 8 | 0x80 }
    }
    try! picture.writePNG(to: directory + "/still.png")
    let scene = Scene()
    StandardKinds.register(in: scene)
    try! scene.addRoot(id: "root", output: "bench", size: Size(width: 1920, height: 1080))
    var tx = Transaction(disableActions: true)
    for i in 0..<24 {
        tx.add(
            layer: "p\(i)", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 320, height: 240)), "anchorPoint": .point(.zero),
                "position": .point(Point(x: Double(i % 6) * 320, y: Double(i / 6) * 270)), "contents": .string(directory + "/still.png"),
                "backgroundColor": .color(Color(red: 0.1, green: 0.1, blue: 0.1, alpha: 1)),
            ])
    }
    try! scene.commit(tx, at: 0)
    let renderer = StandardKinds.renderer(imageDirectory: directory, loader: ImageDecoder.readImage)
    let surface = Surface(width: 1920, height: 1080)
    let tree = try! scene.renderTree(root: "root", at: 0)
    renderer.render(tree, into: surface, region: [surface.bounds])
    func median(_ region: [PixelRect]) -> Double {
        (0..<runs).map { _ in
            let start = DispatchTime.now().uptimeNanoseconds
            renderer.render(tree, into: surface, region: region)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }.sorted()[runs / 2]
    }
    let whole = median([surface.bounds])
    let one = median([PixelRect(x: 320, y: 270, width: 320, height: 240)])
    print(
        "{\"bench\":\"image.still_frame\",\"layers\":24,\"runs\":\(runs),\"full_repaint_ms\":\(String(format: "%.3f", whole)),\"one_layer_ms\":\(String(format: "%.3f", one))}"
    )
}
