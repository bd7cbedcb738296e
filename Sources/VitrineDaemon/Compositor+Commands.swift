import FoundationEssentials
import Glibc
import VitrineCore
import VitrineProtocol
import VitrineRaster
import VitrineSystem
import VitrineWindowHost

/// Executing commands: each scene change is one atomic transaction at the current time.
extension Compositor {
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
                "clients": .number(Double(clients.count)), "animating": .bool(scene.isAnimating), "time": .number(now),
                "images": .number(Double(renderer.images.paths.count)),
                "imageBytes": .number(Double(renderer.images.usedBytes)), "input": input.statistics,
            ]
            stats["fleet"] = fleetStatistics?()
            stats["wall"] = wallStatistics
            stats["droppedFrames"] = .number(Double(heads.reduce(0) { $0 + $1.dropped.count }))
            stats["contentErrors"] = .number(Double(contentErrors.images + contentErrors.videos))
            return .object(stats)
        case .layerAdd, .layerRemove, .layerMove, .layerActions, .layerPause, .layerResume, .layerSpeed:
            var builder = TransactionBuilder(compositor: self)
            var tx = Transaction(disableActions: true)
            let result = try builder.append(command, to: &tx)
            try commit(tx, owner: nil)
            return result
        case .layerSet, .animationAdd, .animationRemove, .numberSet:
            var builder = TransactionBuilder(compositor: self)
            var tx = Transaction()
            var result = try builder.append(command, to: &tx)
            let id = try commit(tx, owner: client)
            if case .numberSet(let layer, let change) = command { trackNumber(layer: layer, value: change.value, transaction: id) }
            if case .object(var o) = result { o["transaction"] = .number(Double(id)); result = .object(o) }
            return result
        case .transaction(let spec):
            var builder = TransactionBuilder(compositor: self)
            var tx = try builder.transaction(spec)
            for inner in spec.commands { _ = try builder.append(inner, to: &tx) }
            return .object(["transaction": .number(Double(try commit(tx, owner: client)))])
        case .layerGet(let id, let keys, let presentation):
            return try layerDescription(id, keys: keys, presentation: presentation)
        case .layerTree(let rootID):
            return try tree(rootID ?? root)
        case .animationList(let layer):
            let infos = try core { () throws(CoreError) in try scene.animations(of: layer) }
            return .array(infos.map(animationDescription))
        case .time(let layer, let convert):
            var result: [String: JSON] = ["time": .number(now)]
            if let layer {
                let local = try core { () throws(CoreError) in try scene.localTime(of: layer, at: now) }
                result["layer"] = local.map(JSON.number) ?? .null
            }
            if let c = convert {
                let converted = try core { () throws(CoreError) in try scene.convertTime(c.time, from: c.from, to: c.to) }
                guard converted.isFinite else {
                    throw ProtocolError(
                        .invalidValue,
                        "converting \(c.time) from \(c.from.map { "'\($0)'" } ?? "media time") to \(c.to.map { "'\($0)'" } ?? "media time") gives no finite time: a layer between them runs at a speed too near 0 or too large; give it a usable speed"
                    )
                }
                result["converted"] = .number(converted)
            }
            return .object(result)
        case .clockSet(let time):
            try setClock(time)
            input.clockMoved()
            return .object(["time": .number(now)])
        case .clockAdvance(let seconds):
            try setClock(now + seconds)
            input.clockMoved()
            return .object(["time": .number(now)])
        case .screenshot:
            throw ProtocolError(.internalError, "screenshot is handled before execute")
        case .outputList:
            return outputList()
        case .surfaceList:
            return windows?.list() ?? .object(["surfaces": .array([])])
        case .surfaceAssign(let surface, let layer):
            guard let windows else { throw WindowHost.serverOff }
            return try windows.assign(surface, to: layer)
        case .surfaceClose(let surface, let layer):
            guard let windows else { throw WindowHost.serverOff }
            return try windows.close(surface, layer: layer)
        case .outputPower(let name, let on):
            let head = try head(named: name)
            try setPower(head, on: on, reason: .command)
            return head.description
        case .subscribe(let patterns, let layers):
            return try subscribe(client, patterns, layers: layers)
        case .unsubscribe(let patterns):
            clients[client]?.subscriptions.removeAll { patterns.contains($0) }
            for pattern in patterns { clients[client]?.layerFilters[pattern] = nil }
            return subscriptions(of: client)
        case .sceneReset:
            return try resetScene()
        case .configReload:
            throw ProtocolError(.internalError, "config.reload is handled before execute")
        case .bindingAdd, .bindingRemove, .bindingList, .inputInject:
            return try executeInput(command)
        case .clientStart(let name, let program):
            guard let windows else { throw WindowHost.noLauncher }
            return try windows.startClient(name, program: program)
        case .clientList:
            return windows?.clientList() ?? .object(["clients": .array([])])
        case .clientStop:
            throw ProtocolError(.internalError, "client.stop is handled before execute")
        }
    }

    /// Commits `tx` at `time` (default now); `owner` receives its completion event.
    @discardableResult
    func commit(_ tx: Transaction, owner: Int?, at time: Double? = nil) throws(ProtocolError) -> UInt64 {
        let id = try core { () throws(CoreError) in try scene.commit(tx, at: time ?? now) }
        if let owner { transactionOwners[id] = owner }
        if !input.bindings.isEmpty, tx.removesLayers { pruneBindings() }
        windows?.layersChanged(added: tx.addsLayers, removed: tx.removesLayers)
        frameNeeded = true
        return id
    }

    private func setClock(_ time: Double) throws(ProtocolError) {
        guard clock.mode == .manual else {
            throw ProtocolError(.notManualClock, "the clock is real time; clock.set and clock.advance need vitrined --clock manual")
        }
        guard time.isFinite, time >= 0, time <= 1e9 else { throw ProtocolError(.invalidValue, "time must be seconds within 0…1e9") }
        clock.set(time)
        applyScheduled(upTo: time)
        frameNeeded = true
    }

    private func hello() -> JSON {
        .object([
            "protocol": .number(1), "version": .string(vitrineVersion),
            "outputs": .array(heads.map(\.description)),
            "clock": .string(clock.mode.rawValue), "time": .number(now), "wallOffset": .number(clock.wallOffset),
            "commands": .array(Command.names.map(JSON.string)), "events": .array(Wire.eventNames.map(JSON.string)),
            "kinds": .array(scene.kinds.keys.sorted().map(JSON.string)),
        ])
    }

    private func subscribe(_ client: Int, _ patterns: [String], layers: [String]?) throws(ProtocolError) -> JSON {
        for p in patterns where !Wire.eventNames.contains(where: { Wire.matches(p, $0) }) {
            throw ProtocolError(
                .invalidValue,
                "'\(p)' matches no event; the events are \(Wire.eventNames.joined(separator: ", ")), and patterns such as \"animation.*\" or \"*\"")
        }
        var state = clients[client]
        let merged = (state?.subscriptions ?? []) + patterns.filter { !(state?.subscriptions ?? []).contains($0) }
        guard merged.count <= settings.limits.subscriptionsPerClient else {
            throw ProtocolError(.limitExceeded, "a client may hold \(settings.limits.subscriptionsPerClient) subscriptions; unsubscribe some first")
        }
        state?.subscriptions = merged
        for pattern in patterns { state?.layerFilters[pattern] = layers.map(Set.init) }
        clients[client] = state
        return subscriptions(of: client)
    }

    /// `subscribe`'s reply: the patterns, and the `layers` filters there are.
    private func subscriptions(of client: Int) -> JSON {
        let state = clients[client]
        var result: [String: JSON] = ["subscriptions": .array((state?.subscriptions ?? []).map(JSON.string))]
        if let filters = state?.layerFilters, !filters.isEmpty {
            result["layers"] = .object(filters.mapValues { .array($0.sorted().map(JSON.string)) })
        }
        return .object(result)
    }

    // MARK: Reading the scene

    private func layerDescription(_ id: String, keys: [String]?, presentation: Bool) throws(ProtocolError) -> JSON {
        let kind = try core { () throws(CoreError) in try scene.kind(of: id) }
        let values = try core { () throws(CoreError) in presentation ? try scene.presentationValues(of: id, at: now) : try scene.modelValues(of: id) }
        var properties: [String: JSON] = [:]
        if let keys {
            for key in keys {
                let path: KeyPath
                do { path = try KeyPath(parsing: key) } catch { throw ProtocolError(error) }
                let v = try core { () throws(CoreError) in
                    presentation ? try scene.presentationValue(path, of: id, at: now) : try scene.modelValue(path, of: id)
                }
                properties[key] = v.json
            }
        } else {
            for (slot, descriptor) in kind.properties.enumerated() { properties[descriptor.name] = values[slot: slot].json }
            for (key, value) in values.custom { properties[key] = value.json }
        }
        let parent = try core { () throws(CoreError) in try scene.parent(of: id) }
        return .object([
            "layer": .string(id), "kind": .string(kind.name), "parent": parent.map(JSON.string) ?? .null,
            "properties": .object(properties),
        ])
    }

    private func tree(_ id: String) throws(ProtocolError) -> JSON {
        let kind = try core { () throws(CoreError) in try scene.kind(of: id) }
        var subs: [JSON] = []
        for sub in try core({ () throws(CoreError) in try scene.sublayers(of: id) }) { subs.append(try tree(sub)) }
        return .object(["layer": .string(id), "kind": .string(kind.name), "sublayers": .array(subs)])
    }

    private func animationDescription(_ info: Scene.AnimationInfo) -> JSON {
        let a = info.animation
        let type =
            switch a.kind {
            case .basic: "basic"
            case .spring: "spring"
            case .keyframe: "keyframe"
            case .group: "group"
            case .transition: "transition"
            }
        return .object([
            "key": .string(info.key), "animation": .number(Double(info.id)),
            "keyPath": a.keyPath.map { .string($0.description) } ?? .null, "type": .string(type),
            "beginTime": .number(a.timing.beginTime), "duration": .number(a.timing.duration),
            "speed": .number(a.timing.speed), "repeatCount": a.timing.repeatCount.isFinite ? .number(a.timing.repeatCount) : .string("infinity"),
            "autoreverses": .bool(a.timing.autoreverses), "fillMode": .string(a.timing.fillMode.rawValue),
            "additive": .bool(a.isAdditive), "removedOnCompletion": .bool(a.isRemovedOnCompletion),
        ])
    }

    // MARK: Screenshots

    /// Draws the screen now and encodes (and writes) it on a worker: the reply, or nil
    /// when it follows once the worker is done (`ClientConnection.resume`).
    func screenshot(id: JSON, path: String?, output name: String?, for client: ClientConnection) -> String? {
        let target: String?
        let surface: Surface
        do throws(ProtocolError) {
            let head = try head(named: name)
            target = try path.map { p throws(ProtocolError) in try allowedScreenshotPath(p) }
            do { surface = try renderer.snapshot(scene, root: head.root, at: now, viewport: head.viewport) } catch {
                throw ProtocolError(.internalError, "the screenshot could not be drawn: \(error)")
            }
        } catch {
            return Wire.failure(id: id, error)
        }
        let size = JSON.array([.number(Double(surface.width)), .number(Double(surface.height))])
        return deferredReply(to: client) { finish in
            let queued = offload({ () -> Result<JSON, ProtocolError> in
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

/// Runs a throwing model call and turns its error into the wire's.
@inline(__always)
func core<T>(_ body: () throws(CoreError) -> T) throws(ProtocolError) -> T {
    do { return try body() } catch { throw ProtocolError(error) }
}

/// The version `hello` reports.
public let vitrineVersion = "0.1.0"
