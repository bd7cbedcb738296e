import Logging
import VitrineConfig
import VitrineCore
import VitrineIdentify
import VitrineOutputSet
import VitrineSceneHost
import VitrineSystem

/// The identification screen (`[scene] identify`): an output whose root has nothing to
/// show — no configured scene, nothing restored from the journal — shows who the device is
/// (host name, addresses, fleet id), how to reach it (the control socket), what the output
/// is and a QR code of the device's id, instead of a blank root.
///
/// The rule: it is put on a root that holds no layer when the daemon starts, when its
/// output is plugged in and after `scene.reset`; it leaves a root as soon as a
/// transaction puts any other layer under that root (a script's `layer.add` or
/// transaction, a binding, a loaded scene, the screen keyboard), when a reload gives the
/// root a scene or turns `identify` off, and it does not come back until one of the
/// three. Its layers (ids `identify:ROOT…`) are never journaled.
///
/// While it shows, a route netlink socket on the loop says when addresses change, and the
/// facts are read again on a worker; once it shows nowhere the socket is closed: a daemon
/// with a scene pays nothing for it.
final class IdentificationScreen {
    struct Settings {
        var mode: Configuration.InitialScene.Identify
        var socketPath: String
        var fleet: Configuration.Fleet
    }

    var settings: Settings
    private let sceneHost: SceneHost
    private let outputSet: OutputSet
    private let loop: EventLoop?
    private let workers: WorkerPool?
    private let logger: Logger
    /// Called after a change made outside a request (new addresses): the coordinator's flush.
    var changed: () -> Void = {}
    /// The views shown, by root.
    private(set) var shown: [String: IdentificationView] = [:]
    private var facts: DeviceFacts?
    private var code: (text: String, code: QRCode?)?
    private var watch: AddressWatch?
    private var reading = false
    /// Blank roots wait for the facts being read (a plug-in or reset before any were known).
    private var waiting = false

    init(settings: Settings, sceneHost: SceneHost, outputSet: OutputSet, loop: EventLoop?, workers: WorkerPool?, logger: Logger) {
        self.settings = settings
        self.sceneHost = sceneHost
        self.outputSet = outputSet
        self.loop = loop
        self.workers = workers
        self.logger = logger
    }

    private var scene: Scene { sceneHost.scene }

    /// The ids of the top layers shown, which the journal leaves out with their trees.
    var layerIDs: Set<String> { Set(shown.values.map(\.prefix)) }

    /// Shows the screen on every root that may have it and holds no layer. `readNow`
    /// reads the device's facts in place when none are known (at start, before the loop
    /// runs); otherwise they are read on a worker and the screen follows.
    func showWhereBlank(readNow: Bool = false) {
        let roots = blankRoots()
        guard !roots.isEmpty else { return }
        if facts == nil {
            if readNow || workers == nil {
                facts = DeviceFacts.read()
            } else {
                waiting = true
                return refresh()
            }
        }
        var tx = Transaction(disableActions: true)
        for head in roots {
            let view = makeView(for: head)
            tx.nest(view.build())
            shown[head.root] = view
        }
        do { try sceneHost.commit(tx, owner: nil) } catch {
            logger.warning("the identification screen cannot be shown: \(error.message)")
            for head in roots { shown[head.root] = nil }
        }
        startWatching()
    }

    /// Takes a committed transaction: forgets the views someone removed, and leaves every
    /// root that now holds another layer.
    func committed(addsLayers: Bool, removesLayers: Bool) {
        guard !shown.isEmpty else { return }
        if removesLayers { shown = shown.filter { scene.contains($0.value.prefix) } }
        if addsLayers {
            let crowded = shown.values.filter { view in
                let under = (try? scene.sublayers(of: view.root)) ?? []
                return under != [view.prefix]
            }
            if !crowded.isEmpty { dismiss(crowded.map(\.root)) }
        }
        if shown.isEmpty { stopWatching() }
    }

    /// Removes the screen from `roots` (every root when nil).
    func dismiss(_ roots: [String]? = nil) {
        let views = (roots ?? Array(shown.keys)).compactMap { shown.removeValue(forKey: $0) }
        guard !views.isEmpty else { return }
        var tx = Transaction(disableActions: true)
        for view in views where scene.contains(view.prefix) { tx.remove(layer: view.prefix) }
        do { try sceneHost.commit(tx, owner: nil) } catch { logger.warning("the identification screen cannot be removed: \(error.message)") }
        if shown.isEmpty { stopWatching() }
    }

    // MARK: What it shows

    private func blankRoots() -> [OutputHead] {
        var roots = Set<String>()
        return outputSet.heads.filter { head in
            guard roots.insert(head.root).inserted, shown[head.root] == nil, allowed(on: head) else { return false }
            return (try? scene.sublayers(of: head.root).isEmpty) ?? false
        }
    }

    private func allowed(on head: OutputHead) -> Bool {
        switch settings.mode {
        case .always: true
        case .never: false
        case .auto: head.backend.name.hasPrefix("drm:") || head.backend.name.hasPrefix("fbdev:")
        }
    }

    private func makeView(for head: OutputHead) -> IdentificationView {
        let facts = facts ?? DeviceFacts(hostName: "", addresses: [], deviceID: nil)
        let id = deviceID(facts)
        if code?.text != id {
            do { code = (id, try QRCode(encoding: id)) } catch {
                logger.warning("the identification screen shows no QR code: \(error.message)")
                code = (id, nil)
            }
        }
        let heads = outputSet.heads.filter { $0.root == head.root }
        let mode = head.backend.mode
        let rate = mode.refreshRate.rounded() == mode.refreshRate ? String(Int(mode.refreshRate)) : String(mode.refreshRate)
        let output = heads.map(\.name).joined(separator: ", ") + " · \(mode.width)×\(mode.height) at \(rate) Hz"
        let fleet = settings.fleet.enabled ? "\(settings.fleet.deviceName) via \(settings.fleet.host):\(settings.fleet.port)" : "off"
        let content = IdentificationView.Content(
            facts: facts, deviceID: id, fleet: fleet, socketPath: settings.socketPath, version: vitrineVersion, output: output)
        let size: Size
        if case .rect(let bounds)? = try? scene.modelValue("bounds", of: head.root) {
            size = bounds.size
        } else {
            size = Size(width: Double(mode.width), height: Double(mode.height))
        }
        return IdentificationView(root: head.root, size: size, content: content, code: code?.code)
    }

    /// The fleet's device name when `[fleet] device` sets one, else the machine id, else
    /// the host name.
    private func deviceID(_ facts: DeviceFacts) -> String {
        if !settings.fleet.device.isEmpty { return settings.fleet.device }
        return facts.deviceID ?? (facts.hostName.isEmpty ? "vitrine" : facts.hostName)
    }

    // MARK: Keeping it current

    private func startWatching() {
        guard watch == nil, !shown.isEmpty, let loop else { return }
        let watch = AddressWatch(loop: loop) { [unowned self] in refresh() }
        do { try watch.start() } catch {
            logger.info("the identification screen's addresses will not follow changes: \(error.message)")
            return
        }
        self.watch = watch
    }

    private func stopWatching() {
        watch?.stop()
        watch = nil
    }

    /// Reads the facts again on a worker; when they changed, the shown views are drawn
    /// anew, and blank roots waiting for them are covered.
    func refresh() {
        guard !reading else { return }
        reading = true
        let queued = workers.offload({ DeviceFacts.read() }) { [weak self] fresh in
            guard let self else { return }
            reading = false
            let changed = fresh != facts
            facts = fresh
            if changed, !shown.isEmpty { redraw() }
            if waiting {
                waiting = false
                showWhereBlank()
            }
            self.changed()
        }
        if !queued { reading = false }
    }

    private func redraw() {
        let roots = Array(shown.keys)
        var tx = Transaction(disableActions: true)
        for root in roots {
            guard let old = shown[root], let head = outputSet.heads.first(where: { $0.root == root }) else { continue }
            tx.remove(layer: old.prefix)
            let view = makeView(for: head)
            tx.nest(view.build())
            shown[root] = view
        }
        do { try sceneHost.commit(tx, owner: nil) } catch { logger.warning("the identification screen cannot be updated: \(error.message)") }
    }
}

extension Scene.Snapshot {
    /// The snapshot without the layers of `ids` and everything under them.
    func leavingOut(_ ids: Set<String>) -> Scene.Snapshot {
        guard !ids.isEmpty else { return self }
        var gone = ids
        var snapshot = self
        snapshot.layers = layers.filter { state in
            if gone.contains(state.id) { return false }
            guard let parent = state.parent, gone.contains(parent) else { return true }
            gone.insert(state.id)
            return false
        }
        return snapshot
    }
}

extension SceneJournal.Record {
    /// Whether the record holds no layer but the roots, no animation and no binding: a
    /// screen nobody set up (the identification screen is never journaled), which is not
    /// restored, so that a scene configured since shows.
    var holdsNothing: Bool {
        bindings.isEmpty && scene.layers.allSatisfy { $0.parent == nil && !$0.isDetached && $0.animations.isEmpty }
    }
}

extension Coordinator {
    /// Makes the identification screen and shows it where nothing else is (at start,
    /// reading the device's facts in place: the loop is not running yet).
    func startIdentification(loop: EventLoop?) {
        let settings = IdentificationScreen.Settings(mode: self.settings.identify, socketPath: self.settings.socketPath, fleet: self.settings.fleet)
        let screen = IdentificationScreen(settings: settings, sceneHost: sceneHost, outputSet: outputSet, loop: loop, workers: workers, logger: logger)
        screen.changed = { [unowned self] in flush() }
        journal?.leftOut = { [unowned screen] in screen.layerIDs }
        identification = screen
        screen.showWhereBlank(readNow: true)
    }

    /// Takes a reloaded `[scene]`: `identify` turned off removes the screen; a scene for the
    /// primary output's root takes its place there; turned on, it shows where nothing is.
    func followIdentification() {
        identification.settings.mode = settings.identify
        if settings.identify == .never { identification.dismiss() }
        if settings.initialScene != nil, identification.shown[root] != nil, let head = outputSet.heads.first(where: { $0.root == root }) {
            identification.dismiss([root])
            do { try showScene(of: head) } catch { logger.error("\(error.message)") }
        }
        identification.showWhereBlank()
    }
}
