import FoundationEssentials
import Glibc
import VitrineOutputSet
import VitrineCore
import VitrineProtocol
import VitrineSceneHost
import VitrineRaster
import VitrineSystem
import VitrineWindowHost

/// Executing commands: each scene change is one atomic transaction at the current time.
extension Coordinator {
    /// Runs `command` for client `client` and returns its result.
    func execute(_ command: Command, from client: Int) throws(ProtocolError) -> JSON {
        switch command {
        case .hello:
            return hello()
        case .ping:
            return .object(["pong": .bool(true), "time": .number(now)])
        case .stats:
            var stats: [String: JSON] = [
                "frames": .number(Double(framesRendered)), "pixels": .number(Double(pixelsRepainted)), "layers": .number(Double(scene.layerCount)),
                "clients": .number(Double(subscribers.count)), "animating": .bool(scene.isAnimating), "time": .number(now),
                "images": .number(Double(renderer.images.paths.count)),
                "imageBytes": .number(Double(renderer.images.usedBytes)), "input": input.statistics,
            ]
            stats["wall"] = outputSet.wallStatistics
            stats["droppedFrames"] = .number(Double(outputSet.droppedFrames))
            stats["directFrames"] = .number(Double(outputSet.heads.reduce(0) { $0 + $1.framesDirect }))
            stats["contentErrors"] = .number(Double(content.errors.images + content.errors.videos))
            return .object(stats)
        case .layerAdd, .layerRemove, .layerMove, .layerActions, .layerPause, .layerResume, .layerSpeed, .layerSet, .animationAdd, .animationRemove,
            .numberSet, .transaction, .layerGet, .layerTree, .animationList, .time:
            return try sceneHost.execute(command, from: client)
        case .clockSet(let time, let wall):
            try setClock(time)
            if let wall { clock.setWall(wall) }
            input.clockMoved()
            screenKeyboard?.advance(to: now)
            return .object(["time": .number(now)])
        case .clockAdvance(let seconds):
            try setClock(now + seconds)
            input.clockMoved()
            screenKeyboard?.advance(to: now)
            return .object(["time": .number(now)])
        case .screenshot:
            throw ProtocolError(.internalError, "screenshot is handled before execute")
        case .outputList:
            return outputSet.list()
        case .surfaceList:
            return windows?.list() ?? .object(["surfaces": .array([])])
        case .surfaceAssign(let surface, let layer):
            guard let windows else { throw WindowHost.serverOff }
            return try windows.assign(surface, to: layer)
        case .surfaceClose(let surface, let layer):
            guard let windows else { throw WindowHost.serverOff }
            return try windows.close(surface, layer: layer)
        case .outputPower(let name, let on):
            let head = try outputSet.head(named: name)
            try outputSet.setPower(head, on: on, reason: .command)
            return outputSet.description(of: head)
        case .subscribe(let patterns, let layers):
            return try subscribers.subscribe(client, patterns, layers: layers, limit: settings.limits.subscriptionsPerClient)
        case .unsubscribe(let patterns):
            return subscribers.unsubscribe(client, patterns)
        case .sceneReset:
            defer { identification?.showWhereBlank() }
            return try resetScene()
        case .configReload:
            throw ProtocolError(.internalError, "config.reload is handled before execute")
        case .bindingAdd, .bindingRemove, .bindingList, .inputInject:
            return try input.execute(command, limits: settings.limits)
        case .clientStart(let name, let program):
            guard let windows else { throw WindowHost.noLauncher }
            return try windows.startClient(name, program: program)
        case .clientList:
            return windows?.clientList() ?? .object(["clients": .array([])])
        case .clientStop:
            throw ProtocolError(.internalError, "client.stop is handled before execute")
        case .oskShow, .oskHide, .oskLayout:
            return try executeKeyboard(command)
        case .cecSend:
            throw ProtocolError(.internalError, "cec.send is handled before execute")
        case .playlogQuery:
            throw ProtocolError(.internalError, "playlog.query is handled before execute")
        case .sceneLoad(let load):
            return try showLoaded(load)
        case .signage(let command):
            return try execute(command)
        }
    }

    private func setClock(_ time: Double) throws(ProtocolError) {
        guard clock.mode == .manual else {
            throw ProtocolError(.notManualClock, "the clock is real time; clock.set and clock.advance need vitrined --clock manual")
        }
        guard time.isFinite, time >= 0, time <= 1e9 else { throw ProtocolError(.invalidValue, "time must be seconds within 0…1e9") }
        clock.set(time)
        applyScheduled(upTo: time)
        afterReply.frame = true
    }

    private func hello() -> JSON {
        .object([
            "protocol": .number(1), "version": .string(vitrineVersion),
            "outputs": .array(outputSet.heads.map(outputSet.description(of:))),
            "clock": .string(clock.mode.rawValue), "time": .number(now), "wallOffset": .number(clock.wallOffset),
            "commands": .array(Command.names.map(JSON.string)), "events": .array(Wire.eventNames.map(JSON.string)),
            "kinds": .array(scene.kinds.keys.sorted().map(JSON.string)),
        ])
    }

    // MARK: Screenshots

    /// Draws the screen now and encodes (and writes) it on a worker: the reply, or nil
    /// when it follows once the worker is done (`ClientConnection.resume`).
    /// With `cursor`, the pointer's cursor is drawn over it where the output shows it.
    func screenshot(id: JSON, path: String?, output name: String?, cursor: Bool = false, for client: ClientConnection) -> String? {
        let target: String?
        let surface: Surface
        do throws(ProtocolError) {
            let head = try outputSet.head(named: name)
            target = try path.map { p throws(ProtocolError) in try allowedScreenshotPath(p) }
            do { surface = try renderer.snapshot(scene, root: head.root, at: now, viewport: head.viewport) } catch {
                throw ProtocolError(.internalError, "the screenshot could not be drawn: \(error)")
            }
            if cursor { head.pipeline.cursor?.draw(into: surface, region: [surface.bounds]) }
        } catch {
            return Wire.failure(id: id, error)
        }
        let size = JSON.array([.number(Double(surface.width)), .number(Double(surface.height))])
        return deferredReply(to: client) { finish in
            let queued = workers.offload({ () -> Result<JSON, ProtocolError> in
                let data: [UInt8]
                do { data = try surface.pngData() } catch {
                    return .failure(ProtocolError(.internalError, "the screenshot could not be encoded: \(error)"))
                }
                guard let target else { return .success(.object(["png": .string(Data(data).base64EncodedString()), "size": size])) }
                do { try SafeFile.write(data, to: target) } catch {
                    return .failure(ProtocolError(.pathNotAllowed, "cannot write the screenshot: \(error)"))
                }
                return .success(.object(["path": .string(target), "size": size]))
            }) { result in
                switch result {
                case .success(let result): finish(Wire.reply(id: id, result: result))
                case .failure(let error): finish(Wire.failure(id: id, error))
                }
            }
            if !queued {
                finish(
                    Wire.failure(
                        id: id, ProtocolError(.limitExceeded, "\(workers?.capacity ?? 0) file jobs are waiting already; try the screenshot again shortly")))
            }
        }
    }

    /// `path` (relative ones start in the screenshot directory) if it names a `.png` file
    /// directly inside the screenshot directory or below it, with symbolic links resolved;
    /// a file that is itself a symbolic link is refused.
    func allowedScreenshotPath(_ path: String) throws(ProtocolError) -> String {
        let directory = URL(fileURLWithPath: settings.screenshotDirectory).resolvingSymlinksInPath().path
        let requested = path.hasPrefix("/") ? URL(fileURLWithPath: path) : URL(fileURLWithPath: settings.screenshotDirectory).appendingPathComponent(path)
        let parent = requested.deletingLastPathComponent().resolvingSymlinksInPath().standardizedFileURL.path
        let file = requested.lastPathComponent
        guard file.hasSuffix(".png"), file != ".png", !file.hasPrefix(".") else {
            throw ProtocolError(.invalidValue, "a screenshot path names a .png file, got '\(path)'")
        }
        guard parent == directory || parent.hasPrefix(directory + "/") else {
            throw ProtocolError(
                .pathNotAllowed, "screenshots may only be written under \(settings.screenshotDirectory) (socket.screenshot_dir); '\(path)' is outside it")
        }
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory else {
            throw ProtocolError(.invalidValue, "the directory \(parent) does not exist")
        }
        // The file itself may be a symbolic link to anywhere: writing would follow it.
        var info = stat()
        if lstat(parent + "/" + file, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            throw ProtocolError(
                .pathNotAllowed,
                "'\(path)' is a symbolic link; screenshots are written only to files inside \(settings.screenshotDirectory) (socket.screenshot_dir)")
        }
        return parent + "/" + file
    }
}

/// The version `hello` reports.
public let vitrineVersion = "0.1.0"
