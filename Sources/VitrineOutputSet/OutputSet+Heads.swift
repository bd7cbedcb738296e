import VitrineConfig
import VitrineCore
import VitrineJSON
import VitrineOutput
import VitrineProtocol
import VitrineRaster
import VitrineSystem

/// Heads: each output shows its own root layer and is paced by its own flips.
extension OutputSet {
    /// Adds an output: its root layer (with the configured background), its pipeline on
    /// the shared renderer, and its pacer, which its flips drive. An output with a
    /// viewport (`[wall]`) shows its rectangle of the wall's canvas, a root that the
    /// wall's outputs share. An output plugged in again takes its root `kept` from before
    /// (or the root it would get, if an unplugged output left it).
    @discardableResult
    func addHead(_ backend: OutputBackend, keeping kept: String? = nil) throws -> OutputHead {
        let entry = settings.outputs.first { $0.connector == backend.connector }
        let viewport = (entry?.viewport ?? (backend.connector == primaryConnector ? settings.wall.viewport : nil)).map {
            PixelRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height)
        }
        let wallRoot = heads.first { $0.viewport != nil }?.root
        var root =
            if let wallRoot, viewport != nil { wallRoot } else if let configured = entry?.root, !configured.isEmpty {
                configured
            } else if backend.connector
                == primaryConnector
            {
                "root"
            } else { backend.connector }
        if let viewport, viewport.width != backend.mode.width || viewport.height != backend.mode.height {
            throw SystemError(
                "output \(backend.connector) is \(backend.mode.width)x\(backend.mode.height) but its viewport [\(viewport.x), \(viewport.y), \(viewport.width), \(viewport.height)] is \(viewport.width)x\(viewport.height); a viewport is one canvas pixel to a screen pixel: give it the output's size (or the output a mode, headless_size, of the viewport's)"
            )
        }
        var reused = kept != nil
        if let kept {
            root = kept
        } else if let left = unplugged.first(where: { $0.value.root == root }), scene.contains(root) {
            unplugged[left.key] = nil
            reused = true
        }
        if reused {
            if viewport == nil { try scene.resizeRoot(id: root, size: Size(width: Double(backend.mode.width), height: Double(backend.mode.height))) }
        } else if wallRoot == nil || viewport == nil {
            guard !scene.contains(root) else {
                throw SystemError(
                    "output \(backend.connector) cannot have the root layer '\(root)': a layer of that id exists; set a root in its [[outputs]] table")
            }
            let canvas = viewport != nil ? settings.wall.canvas : nil
            let size =
                canvas.map { Size(width: Double($0.width), height: Double($0.height)) }
                ?? Size(width: Double(backend.mode.width), height: Double(backend.mode.height))
            try scene.addRoot(id: root, output: backend.connector, size: size)
            var setup = Transaction(disableActions: true)
            setup.set(root, "backgroundColor", .color(settings.background))
            try scene.commit(setup, at: clock.now)
        }
        let head = OutputHead(backend: backend, root: root, renderer: renderer, entry: entry, viewport: viewport)
        head.restored = reused || (wallRoot != nil && viewport != nil)
        if let sibling = heads.first(where: { $0.root == root }) {
            let shared = sibling.pipeline.shared ?? SharedDamage()
            shared.join(sibling.pipeline)
            shared.join(head.pipeline)
        }
        let id = ObjectIdentifier(head)
        head.pipeline.extraDamage = { [unowned self] tree in changingContent?(id, tree) ?? [] }
        let clock = clock
        let pacer = FramePacer(refreshRate: backend.mode.refreshRate, now: { clock.now }, schedule: { [unowned self] in schedule($0, $1) })
        pacer.render = { [unowned self, unowned head] in renderFrame(on: [head]) }
        pacer.followsFrameDone = backend.pacesFrames
        head.pacer = pacer
        heads.append(head)
        attachDirectScanout(head)
        backend.frameDone = { [weak self, weak head] in
            guard let self, let head else { return }
            if head === heads.first, let shown = head.backend.shownFrame { notify(.shown(shown)) }
            presentationShown(on: head)
            head.pacer.frameDone()
        }
        return head
    }
}
