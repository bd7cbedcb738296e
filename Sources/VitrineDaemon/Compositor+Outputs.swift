import Glibc
import VitrineConfig
import VitrineCore
import VitrineJSON
import VitrineOutput
import VitrineProtocol
import VitrineRaster
import VitrineSystem

/// Several outputs: each shows its own root layer, is paced by its own flips, and can be
/// blanked and woken (`output.power`, the `[[outputs]]` schedule).
extension Compositor {
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
        if let surfaces { head.pipeline.extraDamage = extraDamage(for: head, surfaces: surfaces) }
        let pacer = FramePacer(refreshRate: backend.mode.refreshRate, now: { [unowned self] in clock.now }, schedule: { [unowned self] in schedule($0, $1) })
        pacer.render = { [unowned self, unowned head] in renderFrame(on: [head]) }
        pacer.followsFrameDone = backend.pacesFrames
        head.pacer = pacer
        heads.append(head)
        let previous = backend.frameDone
        backend.frameDone = { [weak self, weak head] in
            previous?()
            guard let self, let head else { return }
            if head === heads.first { frameShown() }
            presentationShown(on: head)
            head.pacer.frameDone()
        }
        return head
    }

    /// `stats`' `wall`: the canvas and each wall output's viewport; nil without a wall.
    var wallStatistics: JSON? {
        guard let canvas = settings.wall.canvas, heads.contains(where: { $0.viewport != nil }) else { return nil }
        var viewports: [String: JSON] = [:]
        for head in heads where head.viewport != nil { viewports[head.name] = head.description["viewport"] }
        return .object([
            "canvas": .array([.number(Double(canvas.width)), .number(Double(canvas.height))]), "root": .string(heads.first { $0.viewport != nil }!.root),
            "viewports": .object(viewports),
        ])
    }

    /// The output `name` addresses (connector, backend name or root id); nil: the primary.
    func head(named name: String?) throws(ProtocolError) -> OutputHead {
        guard let name else {
            guard let first = heads.first else { throw ProtocolError(.unknownOutput, "no output is plugged in (output.list)") }
            return first
        }
        guard let head = heads.first(where: { $0.answers(to: name) }) else {
            throw ProtocolError(
                .unknownOutput, "there is no output '\(name)'; the outputs are \(heads.map { "'\($0.name)'" }.joined(separator: ", ")) (output.list)")
        }
        return head
    }

    /// `output.list`: every output, primary first.
    func outputList() -> JSON {
        .object(["outputs": .array(heads.map(\.description))])
    }

    /// Blanks or wakes `head`; subscribers get `output.power` when its state changes.
    func setPower(_ head: OutputHead, on: Bool, reason: Event.PowerReason) throws(ProtocolError) {
        guard head.powered != on else { return }
        do { try head.backend.setPower(on) } catch {
            throw ProtocolError(.internalError, "\(head.name) could not be \(on ? "woken" : "blanked"): \(error)")
        }
        head.powered = on
        outputsPoweredChanged()
        head.dropped.forget()
        if !on { presentationBlanked(head) }
        logger.info("\(head.name): \(on ? "woken" : "blanked") (\(reason))")
        if on {
            head.pipeline.invalidate()
            switch clock.mode {
            case .manual: renderFrame(on: [head])
            case .realtime: head.pacer.request()
            }
        }
        let event = Event.outputPower(output: head.name, root: head.root, on: on, reason: reason)
        // A command's event follows its reply.
        if reason == .command { queuedEvents.append(event) } else { broadcast(event) }
    }

    /// Applies every output's `[[outputs]]` power schedule now and arms a timer for its
    /// next change (local time, read again at each change so that a clock or time-zone
    /// change is taken at the next one).
    func startPowerSchedules() {
        for head in heads where head.entry?.schedule != nil { followSchedule(of: head) }
    }

    func followSchedule(of head: OutputHead) {
        guard let plan = head.entry?.schedule, heads.contains(where: { $0 === head }) else { return }
        tzset()
        let now = Int(time(nil))
        try? setPower(head, on: plan.isOn(at: now), reason: .schedule)
        // A second past the change, so that the minute read then is the new one.
        schedule(Double(plan.nextChange(after: now) - now) + 1) { [weak self, weak head] in
            guard let self, let head else { return }
            followSchedule(of: head)
        }
    }
}
