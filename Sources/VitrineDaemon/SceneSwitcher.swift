import FoundationEssentials
import VitrineConfig
import VitrineCore
import VitrineProtocol
import VitrineSceneHost
import VitrineSystem
import VitrineVideo
import VitrineWindowHost

/// Gets what a scene or a playlist's item shows ready — the scene file read, its images
/// decoded, its videos' sources checked — off the loop, and then shows it in one
/// transaction with its transition: the old picture stays whole until the new one is
/// complete, so no frame shows a half-loaded scene.
///
/// ```swift
/// switcher.prepare(.scene(.named("lunch")), timeout: 10) { result in
///     let ready = try result.get()
///     try switcher.show(ready, root: "root", transition: fade)
/// }
/// ```
final class SceneSwitcher {
    /// Content ready to be shown at once.
    enum Ready {
        /// A scene to put in place of an output's; `directory` is where its file lies.
        case scene(SceneDescription, name: String)
        /// Properties to set on an existing layer (an image's `contents`, a video's `src`).
        case layer(String, properties: [(String, JSON)])
        /// A client's window to show in a surface layer.
        case window(layer: String, surface: Int)
    }

    /// The named scenes (`[scenes.NAME]`); a reload replaces them.
    var scenes: [String: Configuration.InitialScene] = [:]
    /// The spring of animations that leave parameters out.
    var spring: Spring = .coreAnimation
    /// The root's colour for a scene that gives none.
    var background: Color = .black
    /// What `scene.load` got ready, by root, until it is shown.
    var held: [String: Ready] = [:]
    /// The window host, once the compositor serves: where clients' windows come from.
    weak var windows: WindowHost?
    private let sceneHost: SceneHost
    fileprivate let content: ContentHost
    private let workers: WorkerPool?
    fileprivate let loop: EventLoop?

    init(sceneHost: SceneHost, content: ContentHost, workers: WorkerPool?, loop: EventLoop?) {
        self.sceneHost = sceneHost
        self.content = content
        self.workers = workers
        self.loop = loop
    }

    // MARK: Getting ready

    /// One item being made ready: answered once, with its content or why not (its
    /// timeout included); prerolled videos of a failed one are dropped.
    private final class Preparation {
        var finished = false
        var ticket: UInt64?
        /// The video layers prerolled for it.
        var videos: [String] = []
        let done: (Result<Ready, ProtocolError>) -> Void
        weak var switcher: SceneSwitcher?

        init(switcher: SceneSwitcher, done: @escaping (Result<Ready, ProtocolError>) -> Void) {
            self.switcher = switcher
            self.done = done
        }

        func finish(_ result: Result<Ready, ProtocolError>) {
            guard !finished else { return }
            finished = true
            if let ticket { switcher?.loop?.cancel(ticket) }
            if case .failure = result { for layer in videos { switcher?.content.videos.cancelPreroll(layer) } }
            done(result)
        }
    }

    /// Reads and loads what `item` shows; `done` gets it ready, or why it cannot be shown
    /// (after `timeout` seconds at most), once, on the loop.
    func prepare(_ item: PlaylistItem.Content, timeout: Double, done: @escaping (Result<Ready, ProtocolError>) -> Void) {
        let p = Preparation(switcher: self, done: done)
        p.ticket = loop?.schedule(after: timeout) { [weak p] in
            p?.finish(.failure(ProtocolError(.contentFailed, "\(item) was not ready within \(timeout) s")))
        }
        switch item {
        case .scene(let source):
            readScene(source) { [unowned self] result in
                switch result {
                case .success(let (scene, name)): load(scene, name: name, p)
                case .failure(let error): p.finish(.failure(error))
                }
            }
        case .image(let layer, let path):
            content.loader.load([path]) { error in
                p.finish(error.map { .failure($0) } ?? .success(.layer(layer, properties: [("contents", .string(path))])))
            }
        case .video(let layer, let path):
            let scene = sceneHost.scene
            let bounds = (try? scene.modelValues(of: layer))?.rect(.bounds).size ?? Size(width: 2, height: 2)
            func string(_ key: String) -> String? { (try? KeyPath(parsing: key)).flatMap { try? scene.modelValue($0, of: layer).string } }
            let gravity = string("videoGravity"), audio = string("audio")
            do throws(VideoError) {
                try content.videos.preroll(
                    layer: layer, src: path, width: Int(bounds.width.rounded(.up)), height: Int(bounds.height.rounded(.up)), letterbox: gravity != "resize",
                    audio: audio.flatMap(VideoAudio.init(rawValue:)) ?? .off)
            } catch {
                return p.finish(.failure(ProtocolError(.contentFailed, error.message)))
            }
            p.videos = [layer]
            waitForVideos(p) { error in
                p.finish(error.map { .failure($0) } ?? .success(.layer(layer, properties: [("src", .string(path)), ("start", .number(0))])))
            }
        case .window(let layer, let client):
            guard let windows else { return p.finish(.failure(WindowHost.noLauncher)) }
            if Self.pid(of: client, in: windows) == nil {
                do { _ = try windows.startClient(client, program: nil) } catch { return p.finish(.failure(error)) }
            }
            waitForWindow(of: client, in: windows, p) { surface in p.finish(.success(.window(layer: layer, surface: surface))) }
        }
    }

    /// Calls `ready` once the videos `p` prerolled have decoded their first frames
    /// (looked at every 10 ms), or with why one cannot play.
    private func waitForVideos(_ p: Preparation, ready: @escaping (ProtocolError?) -> Void) {
        guard !p.finished else { return }
        var waiting = false
        for layer in p.videos {
            do { waiting = try !content.videos.isPrerolled(layer) || waiting } catch {
                return ready(ProtocolError(.contentFailed, "video layer '\(layer)': \(error.message)"))
            }
        }
        guard waiting, let loop else { return ready(nil) }
        loop.schedule(after: 0.01) { [weak self] in self?.waitForVideos(p, ready: ready) }
    }

    /// Calls `found` with the surface id of `client`'s first mapped window once it has one
    /// (looked for every 50 ms while `p` waits).
    private func waitForWindow(of client: String, in windows: WindowHost, _ p: Preparation, found: @escaping (Int) -> Void) {
        guard !p.finished else { return }
        if let pid = Self.pid(of: client, in: windows),
            let surface = windows.list()["surfaces"]?.array?.first(where: { $0["pid"]?.number == pid && $0["mapped"] == .bool(true) })?["surface"]?.number
        {
            return found(Int(surface))
        }
        loop?.schedule(after: 0.05) { [weak self, weak windows] in
            guard let self, let windows else { return }
            waitForWindow(of: client, in: windows, p, found: found)
        }
    }

    private static func pid(of client: String, in windows: WindowHost) -> Double? {
        windows.clientList()["clients"]?.array?.first { $0["name"]?.string == client }?["pid"]?.number
    }

    /// The scene `source` names: a configured one, or a file under the content roots read
    /// by a worker. Relative paths inside it are made absolute from its directory.
    private func readScene(_ source: SceneSource, done: @escaping (Result<(SceneDescription, String), ProtocolError>) -> Void) {
        switch source {
        case .named(let name):
            guard let named = scenes[name], let scene = named.content else {
                return done(.failure(ProtocolError(.invalidValue, "there is no scene '\(name)'; the configured scenes are \(scenes.keys.sorted())")))
            }
            let directory = named.file.isEmpty ? nil : String(named.file.prefix(upTo: named.file.lastIndex(of: "/") ?? named.file.endIndex))
            done(.success((directory.map { Self.resolvingPaths(of: scene, from: $0) } ?? scene, name)))
        case .file(let reference):
            let path: String
            do { path = try content.loader.resolve(reference) } catch {
                return done(.failure(error.prefixed("scene.load: ")))
            }
            let queued = workers.offload({ () -> Result<SceneDescription, ProtocolError> in
                Result { () throws(ProtocolError) in try SceneDescription(contentsOf: URL(fileURLWithPath: path)) }
            }) { result in
                let directory = String(path.prefix(upTo: path.lastIndex(of: "/") ?? path.endIndex))
                done(result.map { (Self.resolvingPaths(of: $0, from: directory), reference) })
            }
            if !queued { done(.failure(ProtocolError(.limitExceeded, "the file workers are busy; try \(reference) again shortly"))) }
        }
    }

    /// Loads `scene`'s images and prerolls its videos (checking every source), both at once.
    private func load(_ scene: SceneDescription, name: String, _ p: Preparation) {
        let (images, videos) = Self.references(in: scene)
        for src in videos {
            if case .failure(let error) = ContentHost.videoLocation(src, content: content.loader, network: content.settings.networkVideo) {
                return p.finish(.failure(ProtocolError(.contentFailed, "scene \(name): \(error.message)")))
            }
        }
        for layer in scene.layers where layer.kind == "video" {
            let properties = Dictionary(layer.properties, uniquingKeysWith: { $1 })
            guard let src = properties["src"]?.string, !src.isEmpty, (properties["playlist"]?.array ?? []).isEmpty else { continue }
            let bounds = properties["bounds"]?.array?.compactMap(\.number) ?? []
            do throws(VideoError) {
                try content.videos.preroll(
                    layer: layer.id, src: src, width: Int(bounds.count == 4 ? bounds[2] : 2), height: Int(bounds.count == 4 ? bounds[3] : 2),
                    letterbox: properties["videoGravity"]?.string != "resize", audio: properties["audio"]?.string.flatMap(VideoAudio.init(rawValue:)) ?? .off)
            } catch {
                return p.finish(.failure(ProtocolError(.contentFailed, "scene \(name): video layer '\(layer.id)': \(error.message)")))
            }
            p.videos.append(layer.id)
        }
        var parts = 2
        let part: (ProtocolError?) -> Void = { error in
            if let error { return p.finish(.failure(error.prefixed("scene \(name): "))) }
            parts -= 1
            if parts == 0 { p.finish(.success(.scene(scene, name: name))) }
        }
        if images.isEmpty { part(nil) } else { content.loader.load(images, done: part) }
        waitForVideos(p, ready: part)
    }

    /// The image `contents` and the video sources a scene's layers show.
    static func references(in scene: SceneDescription) -> (images: [String], videos: [String]) {
        var images: [String] = [], videos: [String] = []
        for layer in scene.layers {
            for (key, value) in layer.properties {
                switch key {
                case "contents": if let s = value.string, !s.isEmpty { images.append(s) }
                case "src" where layer.kind == "video": if let s = value.string, !s.isEmpty { videos.append(s) }
                case "playlist" where layer.kind == "video": videos += value.array?.compactMap(\.string) ?? []
                default: break
                }
            }
        }
        return (images, videos)
    }

    /// `scene` with its relative image and video paths made absolute from `directory`.
    static func resolvingPaths(of scene: SceneDescription, from directory: String) -> SceneDescription {
        func absolute(_ json: JSON) -> JSON {
            guard let s = json.string, !s.isEmpty, !s.hasPrefix("/"), !s.contains("://") else { return json }
            return .string(directory + "/" + s)
        }
        var scene = scene
        for i in scene.layers.indices {
            scene.layers[i].properties = scene.layers[i].properties.map { key, value in
                switch key {
                case "contents": (key, absolute(value))
                case "src" where scene.layers[i].kind == "video": (key, absolute(value))
                case "playlist" where scene.layers[i].kind == "video": (key, .array((value.array ?? []).map(absolute)))
                default: (key, value)
                }
            }
        }
        return scene
    }

    // MARK: Showing

    /// Shows `ready` now: a scene in place of everything under `root` (its background
    /// too), or a layer's new content; with `transition` on `root` (or on the layer).
    /// Returns the scene's bindings, to be added; throws and changes nothing when it
    /// does not fit the scene.
    @discardableResult
    func show(_ ready: Ready, root: String, transition: SceneTransition?) throws(ProtocolError) -> [BindingSpec] {
        let scene = sceneHost.scene
        let time = sceneHost.now
        switch ready {
        case .scene(let description, _):
            let (setup0, animate) = try description.transactions(for: scene, root: root, at: time, springDefaults: spring)
            var setup = setup0
            var replace = Transaction(disableActions: true)
            for sub in try core({ () throws(CoreError) in try scene.sublayers(of: root) }) { replace.remove(layer: sub) }
            replace.operations.append(.removeAllAnimations(layer: root))
            if description.background == nil { setup.set(root, "backgroundColor", .color(background)) }
            replace.nest(setup)
            if let transition { replace.addAnimation(transition.animation, forKey: Animation.transitionKey, to: root) }
            try sceneHost.commit(replace, owner: nil, at: time)
            if !animate.operations.isEmpty { _ = try? sceneHost.commit(animate, owner: nil, at: time) }
            return description.bindings
        case .layer(let id, let properties):
            let spec = TransactionSpec.content(of: id, properties, transition: transition)
            try sceneHost.commit(spec, owner: nil, at: time)
            return []
        case .window(let layer, let surface):
            guard let windows else { throw WindowHost.noLauncher }
            _ = try windows.assign(surface, to: layer)
            return []
        }
    }
}

extension SceneSwitcher {
    /// Every layer under `root`, for the bindings that go with them.
    func sublayers(of root: String) throws(ProtocolError) -> [String] {
        var all: [String] = []
        var pending = [root]
        while let id = pending.popLast() {
            let subs = try core { () throws(CoreError) in try sceneHost.scene.sublayers(of: id) }
            all += subs
            pending += subs
        }
        return all
    }
}
