import VitrineCore
import VitrineImage
import VitrineRaster

/// Layers' `contents`: drawn through their gravity at the frame their layer's time shows,
/// and asked of the image store at the size they are shown at.
extension Renderer {
    /// Draws the picture `reference` names into `node`'s bounds, if it is loaded.
    func drawPicture(_ reference: String, _ node: RenderTree.Node, bounds: Rect, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
        let gravity = ContentsGravity(rawValue: node.values.string(.contentsGravity)) ?? .resize
        let scale = (
            x: (transform.a * transform.a + transform.b * transform.b).squareRoot(), y: (transform.c * transform.c + transform.d * transform.d).squareRoot()
        )
        let shown = Size(width: bounds.width * scale.x, height: bounds.height * scale.y)
        guard let picture = images.picture(reference, shownIn: (shown, gravity)) else { return }
        let geometry = ContentsGeometry(node.values, gravity: gravity, bounds: bounds)
        var opacity = opacity
        if !animations.fades.isEmpty, let fade = animations.fades[node.id], case let progress = (animations.time - fade.start) / fade.duration, progress < 1 {
            // The old picture whole under the new one fading in: a cross-dissolve, exact
            // where the new one is opaque.
            let old = fade.from
            let frame = old.isAnimated ? old.frames[animations.frame(of: old, layer: node.id).index] : old.frames[0]
            geometry.draw(frame, naturalSize: old.naturalSize, on: surface, transform: transform, opacity: opacity, clip: clip)
            opacity *= max(0, progress)
            animations.note(0)
        }
        var image = picture.frames[0]
        if picture.isAnimated {
            let frame = animations.frame(of: picture, layer: node.id)
            animations.shown[node.id] = (picture, frame.index, node.visualBounds)
            animations.note(frame.untilNext)
            image = picture.frames[frame.index]
        }
        geometry.draw(image, naturalSize: picture.naturalSize, on: surface, transform: transform, opacity: opacity, clip: clip)
    }
}

/// Where a layer's contents image goes: `contentsRect` picks the part of the image shown,
/// `contentsScale` sets its size in points (pixels per point), `contentsGravity` places it
/// in the bounds and `contentsCenter` stretches only its middle (nine-slice).
struct ContentsGeometry {
    let gravity: ContentsGravity
    let bounds: Rect
    /// The part shown, in unit coordinates of the image.
    let part: Rect
    /// The stretching part, in unit coordinates of `part`; nil when all of it stretches.
    let center: Rect?
    let scale: Double

    init(_ v: PropertyValues, gravity: ContentsGravity, bounds: Rect) {
        self.gravity = gravity
        self.bounds = bounds
        part = v.rect(.contentsRect)
        let center = v.rect(.contentsCenter)
        self.center = center == Rect(x: 0, y: 0, width: 1, height: 1) ? nil : center
        let scale = v.number(.contentsScale)
        self.scale = scale > 0 ? scale : 1
    }

    /// Draws `image`, a frame of a picture of `naturalSize` points (at contentsScale 1).
    func draw(_ image: Surface, naturalSize: Size, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
        guard part.width > 0, part.height > 0 else { return }
        let size = Size(width: naturalSize.width * part.width / scale, height: naturalSize.height * part.height / scale)
        let rect = gravity.rect(contentSize: size, bounds: bounds)
        let w = Double(image.width), h = Double(image.height)
        let source = Rect(x: part.minX * w, y: part.minY * h, width: part.width * w, height: part.height * h)
        if let center {
            let pointsPerPixel = (x: naturalSize.width / w / scale, y: naturalSize.height / h / scale)
            surface.draw(
                image: image, in: rect, from: source, center: center, pointsPerPixel: pointsPerPixel, transform: transform, opacity: opacity,
                clip: clip)
        } else {
            surface.draw(image: image, in: rect, from: source, transform: transform, opacity: opacity, clip: clip)
        }
    }
}

/// The animated pictures on screen: which frame each layer showed, and when one shows the
/// next. A frame shows an animation's frame for its layer's local time (the layer's
/// beginTime, speed, timeOffset and its ancestors' apply: a paused layer freezes it, speed
/// 2 plays it twice as fast). Also the layers whose picture fades in over the one they
/// showed (`fade`). While no animated or fading picture is on screen this costs nothing.
public final class PictureAnimations {
    /// The clock animated pictures play by: a layer's local time at media time `time`, and
    /// how fast it runs against media time (0 while paused); nil while the layer is
    /// inactive. Unset, pictures show their first frame.
    public var clock: ((_ layer: String, _ time: Double) -> (time: Double, rate: Double)?)?
    /// The media time of the frame being drawn.
    public var time = 0.0
    /// Per layer showing an animated picture: the picture, the frame it showed, and where
    /// on screen.
    var shown: [String: (picture: Picture, frame: Int, area: Rect)] = [:]
    /// Layers whose picture fades in over the one they showed: that one, and when the fade
    /// starts and how long it lasts (media time, seconds).
    var fades: [String: (from: Picture, start: Double, duration: Double)] = [:]
    /// Media seconds from `time` until a picture on screen shows another frame; nil when
    /// none will (none on screen, paused, played out). 0 while a picture fades.
    public private(set) var nextChange: Double?

    public init() {}

    /// Fades `layer`'s picture in over `from`, the one it showed, from media time `start`
    /// for `duration` seconds: Core Animation's fade transition on `contents`.
    public func fade(layer: String, from: Picture, start: Double, duration: Double) {
        if duration > 0 { fades[layer] = (from, start, duration) }
    }

    /// The frame of `picture` that `layer` shows now, and media seconds until the next.
    func frame(of picture: Picture, layer: String) -> (index: Int, untilNext: Double?) {
        guard let clock = clock?(layer, time) else { return (0, nil) }
        let frame = picture.frame(at: clock.time)
        guard let until = frame.untilNext else { return (frame.index, nil) }
        // Played backwards, the frame is looked at again every frame.
        return (frame.index, clock.rate > 0 ? until / clock.rate : clock.rate < 0 ? 1.0 / 60 : nil)
    }

    /// Runs `draw`, a drawing apart from the frames on screen (a screenshot), at media time
    /// `time` of `scene`, leaving what the frames showed as it was.
    func aside(scene: Scene, at time: Double, _ draw: () -> Void) {
        let kept = (clock, self.time, shown, nextChange, fades)
        if clock == nil { clock = { [unowned scene] in scene.pictureClock(of: $0, at: $1) } }
        self.time = time
        draw()
        (clock, self.time, shown, nextChange, fades) = kept
    }

    /// Takes `delay` into the time of the next change.
    func note(_ delay: Double?) {
        if let delay { nextChange = min(nextChange ?? .infinity, delay) }
    }

    /// The screen rectangles of the animated pictures in `tree` whose frame changed since
    /// they were drawn, and of the fading ones, to repaint; forgets the layers that no
    /// longer show one and the fades that are over, and sets `nextChange` (which drawing
    /// lowers when another starts showing).
    public func damage(in tree: RenderTree, images: ImageStore) -> [Rect] {
        nextChange = nil
        guard !shown.isEmpty || !fades.isEmpty else { return [] }
        var rects: [Rect] = []
        var seen = 0, fading = 0
        for node in tree.nodes {
            if let fade = fades[node.id] {
                fading += 1
                rects.append(node.visualBounds)
                if time >= fade.start + fade.duration { fades[node.id] = nil } else { note(0) }
            }
            guard let entry = shown[node.id] else { continue }
            seen += 1
            guard let picture = images.held(node.values.string(.contents)), picture.isAnimated else {
                shown[node.id] = nil
                continue
            }
            let frame = self.frame(of: picture, layer: node.id)
            if frame.index != entry.frame || picture !== entry.picture {
                rects.append(node.visualBounds)
                if entry.area != node.visualBounds { rects.append(entry.area) }
                shown[node.id] = (picture, frame.index, node.visualBounds)
            }
            note(frame.untilNext)
        }
        if seen < shown.count || fading < fades.count {
            let ids = Set(tree.nodes.lazy.map(\.id))
            shown = shown.filter { ids.contains($0.key) }
            fades = fades.filter { ids.contains($0.key) }
        }
        return rects
    }
}

extension Scene {
    /// A layer's local time at media time `time` and its rate against media time (the
    /// product of its and its ancestors' speeds): the clock its animated picture plays by.
    public func pictureClock(of layer: String, at time: Double) -> (time: Double, rate: Double)? {
        guard let local = (try? localTime(of: layer, at: time)) ?? nil,
            let zero = try? convertTime(0, from: nil, to: layer), let one = try? convertTime(1, from: nil, to: layer)
        else { return nil }
        return (local, one - zero)
    }
}
