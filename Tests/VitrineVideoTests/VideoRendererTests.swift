import Testing
import VitrineCore
import VitrineRaster
import VitrineRender
import VitrineTestSupport
import VitrineDecoderHelper
import VitrineVideo
import VitrineVideoLayer

/// `VideoRenderer` drawing a `video` layer of a scene through the renderer, by the layer's
/// time: the frame due drawn in the layer's bounds, the layer's speed as the rate, the
/// damage of a frame that changed, the bytes its player holds (and a player whose frames
/// do not fit the memory left refused), and the events of a source that cannot be played.
@Suite struct VideoRendererTests {
    let files: VideoFiles
    let scene = Scene()
    let renderer = Renderer()
    let videos: VideoRenderer
    /// What `onEvent` was told: layer, source, event.
    final class Told {
        var events: [(layer: String, src: String, event: VideoEvent)] = []
        var memory: [Int] = []
    }
    let told = Told()

    init() throws {
        files = try VideoFiles()
        scene.register(VideoLayer.kind)
        try scene.addRoot(id: "root", output: "test", size: Size(width: 64, height: 48))
        videos = VideoRenderer(animations: renderer.animations)
        renderer.register(videos, forKind: VideoLayer.kindName)
        let (scene, told) = (scene, told)
        renderer.animations.clock = { [unowned scene] in scene.pictureClock(of: $0, at: $1) }
        videos.wait = 10
        videos.resolve = { src in src.hasPrefix("/") ? .success(.file(src)) : .failure(VideoError(message: "no path: \(src)", debug: "")) }
        videos.makeDecoder = { source throws(VideoError) in
            try RemoteVideoDecoder(source, settings: DecoderClient.Settings(executable: decoderHelperPath)) { print("video decoder: \($0)") }
        }
        videos.onEvent = { told.events.append(($0, $1, $2)) }
        videos.onMemory = { told.memory.append($0) }
    }

    /// Adds the video layer "v" over the left half of the screen's top half, playing `src`.
    func addLayer(_ src: String, speed: Double = 1) throws {
        var tx = Transaction()
        tx.add(
            layer: "v", kind: VideoLayer.kindName, parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 32, height: 24)), "position": .point(Point(x: 16, y: 12)), "src": .string(src),
                "speed": .number(speed),
            ])
        _ = try scene.commit(tx, at: 0)
    }

    /// The screen at media time `time`, and the colours in the layer's middle and outside it.
    func frame(at time: Double) throws -> (inside: PremultipliedColor, outside: PremultipliedColor) {
        let image = try renderer.snapshot(scene, root: "root", at: time)
        return (image.pixel(x: 16, y: 12), image.pixel(x: 48, y: 36))
    }

    @Test func theFrameDueAtTheLayersTimeIsDrawnInItsBounds() throws {
        try addLayer(try files.make(["red", "blue"]))
        // The video starts where the layer is first drawn: media time 0.1 is its 0.
        let early = try frame(at: 0.1)
        #expect(early.inside.isNear(red: 255, green: 0, blue: 0), "\(early.inside)")
        #expect(!early.outside.isNear(red: 255, green: 0, blue: 0), "\(early.outside)")
        #expect(try frame(at: 0.5).inside.isNear(red: 255, green: 0, blue: 0))
        let late = try frame(at: 0.7)
        #expect(late.inside.isNear(red: 0, green: 0, blue: 255), "\(late.inside)")
        #expect(videos.players == 1)
        #expect(told.events.count == 1 && told.events.first?.layer == "v")
        if case .started = told.events.first?.event {} else { Issue.record("\(told.events)") }
    }

    @Test func theLayersSpeedIsTheRate() throws {
        try addLayer(try files.make(["red", "blue"]), speed: 0.5)
        // At half speed, media time 0.8 is the video's 0.4: still red; 1.4 is its 0.7: blue.
        _ = try frame(at: 0)
        #expect(try frame(at: 0.8).inside.isNear(red: 255, green: 0, blue: 0))
        #expect(try frame(at: 1.4).inside.isNear(red: 0, green: 0, blue: 255))
    }

    /// The render tree at media time `time`, which the renderers are brought to (as a
    /// frame of the daemon does before asking for damage).
    func tree(at time: Double) throws -> RenderTree {
        renderer.animations.time = time
        return try scene.renderTree(root: "root", at: time)
    }

    @Test func aFrameThatChangedIsDamagedOnce() throws {
        try addLayer(try files.make(["red", "blue"]))
        let first = try tree(at: 0.1)
        let area = try #require(first.nodes.first { $0.id == "v" }?.visualBounds)
        #expect(area.contains(Rect(x: 0, y: 0, width: 32, height: 24)))
        #expect(videos.damage(in: first) == [area])
        #expect(videos.damage(in: first).isEmpty)
        #expect(try #require(videos.nextChange) > 0)
        // The same frame a little later: nothing to repaint; the next frame: the layer.
        #expect(videos.damage(in: try tree(at: 0.11)).isEmpty)
        #expect(videos.damage(in: try tree(at: 0.6)) == [area])
    }

    @Test func thePlayersBytesAreCountedAndForgottenWithTheLayer() throws {
        try addLayer(try files.make(["red"]))
        _ = try frame(at: 0)
        let expected = VideoPlayer.bytes(of: VideoSource(.file(""), width: 32, height: 24))
        #expect(videos.bytes == expected && told.memory == [expected])
        var tx = Transaction()
        tx.remove(layer: "v")
        _ = try scene.commit(tx, at: 0.1)
        _ = videos.damage(in: try scene.renderTree(root: "root", at: 0.1))
        #expect(videos.players == 0 && videos.bytes == 0 && told.memory == [expected, 0])
    }

    @Test func framesThatFitTheMemoryLeftExactlyArePlayed() throws {
        let needed = VideoPlayer.bytes(of: VideoSource(.file(""), width: 32, height: 24))
        videos.memoryAvailable = { needed }
        try addLayer(try files.make(["red"]))
        #expect(try frame(at: 0.2).inside.isNear(red: 255, green: 0, blue: 0))
        #expect(videos.players == 1 && videos.bytes == needed)
    }

    @Test func framesThatDoNotFitTheMemoryLeftAreRefused() throws {
        let needed = VideoPlayer.bytes(of: VideoSource(.file(""), width: 32, height: 24))
        videos.memoryAvailable = { needed - 1 }
        try addLayer(try files.make(["red"]))
        let drawn = try frame(at: 0.2)
        #expect(!drawn.inside.isNear(red: 255, green: 0, blue: 0))
        #expect(videos.players == 0 && videos.bytes == 0 && told.memory.isEmpty)
        guard case .error(let message, _) = told.events.first?.event, told.events.count == 1 else {
            Issue.record("\(told.events)")
            return
        }
        #expect(message == "32×24 frames take 0 MB; limits.memory_mb leaves 0 MB beside the images and videos held")
    }

    @Test func aSourceThatCannotBePlayedIsToldWithItsLayer() throws {
        videos.resolve = { .failure(VideoError(message: "not under the content roots: \($0)", debug: "")) }
        try addLayer("/elsewhere/film.mkv")
        _ = try frame(at: 0)
        #expect(videos.players == 0)
        #expect(told.events.map { $0.src } == ["/elsewhere/film.mkv"])
        #expect(told.events.first?.event == .error(message: "not under the content roots: /elsewhere/film.mkv", debug: ""))

        // A file GStreamer cannot read: its player fails with GStreamer's words.
        videos.resolve = { .success(.file($0)) }
        var tx = Transaction()
        tx.set("v", try KeyPath(parsing: "src"), .string(try files.text()))
        _ = try scene.commit(tx, at: 0)
        _ = try frame(at: 0.1)
        #expect(told.events.count == 2 && told.events.last?.layer == "v")
        if case .error(let message, _) = told.events.last?.event {
            #expect(!message.isEmpty)
        } else {
            Issue.record("\(told.events)")
        }
    }
}
