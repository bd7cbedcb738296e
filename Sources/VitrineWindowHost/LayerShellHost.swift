import Logging
import VitrineCore
import VitrineWayland

/// Layer surfaces (`zwlr_layer_shell_v1`: wvkbd, squeekboard, a panel) on the scene: each
/// mapped one is a `surface` layer of its own, `layer-shell-ID`, a sublayer of its output's
/// root (the primary output's when it named none or one the scene has no root for), over
/// every other sublayer there (`top`, `overlay`) or under them (`background`, `bottom`) by
/// its zPosition. Its place follows the protocol: its anchors and margins within the output,
/// its size the one asked for or the space between opposite anchors; the exclusive zones of
/// the surfaces anchored to an edge are taken from the area the others are placed in. The
/// windows the scene places are not moved for them: scripts place those.
///
/// It owns its layers: they are made, moved and removed without implicit animations, and
/// made again after a script removed them.
final class LayerShellHost {
    private let scene: Scene
    private unowned let surfaces: SurfaceRenderer
    /// The layer surfaces alive, in the order made.
    private var known: [LayerSurface] = []
    /// The scene layer each mapped surface is shown in.
    private var layers: [ObjectIdentifier: String] = [:]
    private let logger: Logger

    /// zPositions of the four layers: far from the 0 of the scene's own layers.
    static let depth: [LayerSurface.Layer: Double] = [.background: -30_000, .bottom: -20_000, .top: 20_000, .overlay: 30_000]

    init(scene: Scene, surfaces: SurfaceRenderer, logger: Logger) {
        self.scene = scene
        self.surfaces = surfaces
        self.logger = logger
    }

    /// The layer surfaces mapped now, topmost layer last.
    var mapped: [LayerSurface] { known.filter(\.isMapped).sorted { $0.settings.layer < $1.settings.layer } }

    /// The scene layer showing `window`, when it is a layer surface shown.
    func layer(of window: any HostedWindow) -> String? {
        (window as? LayerSurface).flatMap { layers[ObjectIdentifier($0)] }
    }

    func changed(_ surface: LayerSurface, at time: Double) {
        if !known.contains(where: { $0 === surface }) { known.append(surface) }
        arrange(at: time)
    }

    func gone(_ surface: LayerSurface, at time: Double) {
        known.removeAll { $0 === surface }
        arrange(at: time)
    }

    /// The root layer showing `output`'s surfaces.
    private func root(for output: String?) -> String? {
        let roots = scene.rootIDs
        if let output, let root = roots.first(where: { scene.output(ofRoot: $0) == output }) { return root }
        return output == nil || roots.count == 1 ? roots.first : nil
    }

    /// Places every layer surface, sends the configures, and makes, moves or removes their
    /// scene layers.
    func arrange(at time: Double) {
        var tx = Transaction(disableActions: true)
        var placed: [ObjectIdentifier: String] = [:]
        let byRoot = Dictionary(grouping: known.filter(\.isAlive)) { root(for: $0.output) ?? "" }
        for (root, group) in byRoot {
            guard !root.isEmpty, let bounds = try? scene.modelValues(of: root).rect(.bounds) else {
                for surface in group {
                    logger.info("layer surface \(surface.id) ('\(surface.namespace)'): its output \(surface.output ?? "?") is gone: closed")
                    surface.close()
                }
                continue
            }
            for (surface, frame) in LayerArrangement.place(group, in: Rect(origin: .zero, size: bounds.size)) {
                surface.arrange(width: frame.configured.width, height: frame.configured.height)
                guard surface.isMapped, let size = surface.size else { continue }
                let id = "layer-shell-\(surface.id)"
                let rect = frame.placed(width: size.width, height: size.height)
                let properties: [KeyPath: Value] = [
                    "bounds": .rect(Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))),
                    "position": .point(Point(x: rect.origin.x + rect.size.width / 2, y: rect.origin.y + rect.size.height / 2)),
                    "zPosition": .number(Self.depth[surface.settings.layer] ?? 0),
                ]
                if scene.contains(id), (try? scene.parent(of: id)) == root {
                    for (key, value) in properties where (try? scene.modelValue(key, of: id)) != value { tx.set(id, key, value) }
                } else {
                    if scene.contains(id) { tx.remove(layer: id) }
                    tx.add(
                        layer: id, kind: SurfaceLayer.kindName, parent: root,
                        properties: Dictionary(uniqueKeysWithValues: properties.map { ($0.key.description, $0.value) }))
                }
                placed[ObjectIdentifier(surface)] = id
            }
        }
        for (key, id) in layers where placed[key] == nil {
            if scene.contains(id) { tx.remove(layer: id) }
            surfaces.assignments[id] = nil
        }
        layers = placed
        guard !tx.operations.isEmpty else { return assign(placed) }
        do { _ = try scene.commit(tx, at: time) } catch { logger.warning("layer surfaces cannot be placed: \(error.message)") }
        assign(placed)
    }

    /// Each placed surface shown by its layer.
    private func assign(_ placed: [ObjectIdentifier: String]) {
        for surface in known { if let id = placed[ObjectIdentifier(surface)] { surfaces.assignments[id] = surface } }
    }
}

/// Where layer surfaces go on an output, as wlr-layer-shell says: each in its layer's order,
/// those with an exclusive zone first, each such zone taken off the area the next are placed in.
enum LayerArrangement {
    /// Where a surface goes: the size to configure, and the place of a surface of a given size.
    struct Frame {
        var configured: (width: Int, height: Int)
        /// The area it is placed in, its anchors and margins.
        var area: Rect
        var settings: LayerSurface.Settings

        /// The rectangle of a `width` × `height` surface (its own size, maybe not the configured one).
        func placed(width: Int, height: Int) -> Rect {
            let a = settings.anchor
            let m = settings.margin
            let x = Self.along(
                a.contains(.left), a.contains(.right), from: area.origin.x, length: area.size.width, margins: (m.left, m.right), size: Double(width))
            let y = Self.along(
                a.contains(.top), a.contains(.bottom), from: area.origin.y, length: area.size.height, margins: (m.top, m.bottom), size: Double(height))
            return Rect(x: x, y: y, width: Double(width), height: Double(height))
        }

        /// Where a surface of `size` starts along one axis of `length` from `from`: at the
        /// start's margin when anchored there alone, the end's when anchored there alone,
        /// centred between the margins when anchored to both, centred when to neither.
        private static func along(_ start: Bool, _ end: Bool, from: Double, length: Double, margins: (Int, Int), size: Double) -> Double {
            let (before, after) = (Double(margins.0), Double(margins.1))
            let offset: Double
            switch (start, end) {
            case (true, false): offset = before
            case (false, true): offset = length - after - size
            case (true, true): offset = before + (length - before - after - size) / 2
            case (false, false): offset = (length - size) / 2
            }
            return (from + offset).rounded(.down)
        }
    }

    /// The edge an exclusive zone is taken from: the one anchored edge, or the edge anchored
    /// with both its perpendicular ones; nil otherwise.
    static func exclusiveEdge(_ a: LayerSurface.Anchor) -> LayerSurface.Anchor? {
        let horizontal: LayerSurface.Anchor = [.left, .right], vertical: LayerSurface.Anchor = [.top, .bottom]
        for edge in [LayerSurface.Anchor.top, .bottom, .left, .right] {
            let across = vertical.contains(edge) ? horizontal : vertical
            let along = vertical.contains(edge) ? vertical : horizontal
            guard a.contains(edge), a.intersection(along) == edge else { continue }
            if a.intersection(across).isEmpty || a.isSuperset(of: across) { return edge }
        }
        return nil
    }

    /// Each surface of `surfaces` (those of one output) with its frame in `output`.
    static func place(_ surfaces: [LayerSurface], in output: Rect) -> [(LayerSurface, Frame)] {
        var usable = output
        var result: [(LayerSurface, Frame)] = []
        let ordered = surfaces.filter(\.wantsConfigure).enumerated()
            .sorted { ($0.element.settings.layer, -$0.offset) > ($1.element.settings.layer, -$1.offset) }.map(\.element)
        for exclusive in [true, false] {
            for surface in ordered where (surface.settings.exclusiveZone > 0) == exclusive {
                let s = surface.settings
                let area = s.exclusiveZone == -1 ? output : usable
                let width = s.width > 0 ? s.width : max(1, Int(area.size.width) - s.margin.left - s.margin.right)
                let height = s.height > 0 ? s.height : max(1, Int(area.size.height) - s.margin.top - s.margin.bottom)
                result.append((surface, Frame(configured: (width, height), area: area, settings: s)))
                guard exclusive, let edge = exclusiveEdge(s.anchor) else { continue }
                let zone = Double(s.exclusiveZone)
                switch edge {
                case .top:
                    usable = Rect(
                        x: usable.origin.x, y: usable.origin.y + zone + Double(s.margin.top), width: usable.size.width,
                        height: max(0, usable.size.height - zone - Double(s.margin.top)))
                case .bottom: usable.size.height = max(0, usable.size.height - zone - Double(s.margin.bottom))
                case .left:
                    usable = Rect(
                        x: usable.origin.x + zone + Double(s.margin.left), y: usable.origin.y, width: max(0, usable.size.width - zone - Double(s.margin.left)),
                        height: usable.size.height)
                default: usable.size.width = max(0, usable.size.width - zone - Double(s.margin.right))
                }
            }
        }
        return result
    }
}
