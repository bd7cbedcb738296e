import VitrineCore
import VitrineRaster
import VitrineRender

/// The `surface` layer kind: a hosted window (a Wayland client's toplevel, an X11 window) as
/// the layer's contents,
/// drawn over the bounds (its window geometry, without client-side shadows), under the
/// layer's transform, opacity, corners and mask like any contents.
public enum SurfaceLayer {
    public static let kindName = "surface"

    public static let kind = LayerKind(name: kindName)
}

/// Draws `surface` layers from the windows assigned to them, tells the windows the size of
/// their layers (a configure), and turns the clients' damage into screen damage.
public final class SurfaceRenderer: ContentRenderer {
    /// The window each layer shows, by layer id.
    public var assignments: [String: any HostedWindow] = [:]
    /// The scale of the output showing a layer (`[[outputs]] scale`), by layer id; nil
    /// while every output is at scale 1.
    public var scaleOfLayer: ((String) -> Double)?
    /// The pictures on screen in the trees damaged since `takeShown`: their frame
    /// callbacks are done when that frame is presented.
    private var shown: [ObjectIdentifier: WindowPicture] = [:]

    private struct Entry {
        /// The picture drawn (a window's picture may be replaced: an X11 window mapped again).
        var picture: ObjectIdentifier?
        var serial = -1
        var area = Rect.zero
    }

    /// What each output last drew of each layer, by output and layer id.
    private var entries: [AnyHashable: [String: Entry]] = [:]

    public init() {}

    /// The scale of the output showing `layer`.
    public func scale(of layer: String) -> Double { scaleOfLayer?(layer) ?? 1 }

    /// The picture a layer shows: its window's, while the window is mapped.
    private func picture(of layer: String) -> WindowPicture? {
        guard let window = assignments[layer], window.isMapped else { return nil }
        return window.picture
    }

    /// Pictures' serials are unique among pictures (the server's counter).
    public func contentVersion(of node: RenderTree.Node) -> AnyHashable? { picture(of: node.id)?.serial }

    /// An opaque (XRGB) window paints every pixel of the bounds: nothing under it is cleared.
    public func coversBoundsOpaquely(_ node: RenderTree.Node) -> Bool {
        picture(of: node.id)?.isOpaque ?? false
    }

    public func draw(_ node: RenderTree.Node, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
        picture(of: node.id)?.draw(in: node.values.rect(.bounds), on: surface, transform: transform, opacity: opacity, clip: clip)
    }

    /// The pictures shown since the last call, which forgets them.
    public func takeShown() -> [WindowPicture] {
        defer { shown.removeAll(keepingCapacity: true) }
        return Array(shown.values)
    }

    /// The pictures shown since `takeShown` that wait for a frame callback.
    public var shownAwaitingFrames: [WindowPicture] { shown.values.filter(\.awaitsFrame) }

    /// The screen rectangles of the surface layers in `tree` whose windows changed since
    /// `output` drew them (only the parts the clients damaged, where the layer kept its
    /// place); asks each window for its layer's size.
    public func damage(in tree: RenderTree, output: AnyHashable = 0) -> [Rect] {
        var rects: [Rect] = []
        var seen: Set<String> = []
        var entries = self.entries[output] ?? [:]
        defer { self.entries[output] = entries }
        for node in tree.nodes where node.kind == SurfaceLayer.kindName {
            seen.insert(node.id)
            let bounds = node.values.rect(.bounds)
            assignments[node.id]?.configure(
                width: max(1, Int(bounds.size.width.rounded())), height: max(1, Int(bounds.size.height.rounded())), scale: scale(of: node.id))
            let picture = picture(of: node.id)
            if let picture { shown[ObjectIdentifier(picture)] = picture }
            var entry = entries[node.id] ?? Entry()
            let identity = picture.map(ObjectIdentifier.init)
            let serial = picture?.serial ?? -1
            guard identity != entry.picture || serial != entry.serial || entry.area != node.visualBounds else { continue }
            if identity == entry.picture, entry.area == node.visualBounds, let picture, let window = picture.windowRect,
                let changed = picture.damage(since: entry.serial), window.width > 0, window.height > 0
            {
                let (sx, sy) = (bounds.size.width / Double(window.width), bounds.size.height / Double(window.height))
                for r in changed {
                    let local = Rect(
                        x: bounds.origin.x + Double(r.x - window.x) * sx, y: bounds.origin.y + Double(r.y - window.y) * sy, width: Double(r.width) * sx,
                        height: Double(r.height) * sy)
                    let screen = node.transform.boundingBox(of: local).insetBy(dx: -1, dy: -1).intersection(node.visualBounds)
                    if !screen.isEmpty { rects.append(screen) }
                }
            } else {
                rects.append(node.visualBounds)
                if entry.area != node.visualBounds, !entry.area.isEmpty { rects.append(entry.area) }
            }
            entry.picture = identity
            entry.serial = serial
            entry.area = node.visualBounds
            entries[node.id] = entry
        }
        for (id, entry) in entries where !seen.contains(id) {
            if !entry.area.isEmpty { rects.append(entry.area) }
            entries[id] = nil
        }
        return rects
    }
}
