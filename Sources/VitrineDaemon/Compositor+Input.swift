import Logging
import VitrineCore
import VitrineInput
import VitrineOutput
import VitrineProtocol
import VitrineSceneHost
import VitrineSystem

/// Bindings, `input.inject`, and events that subscriptions filter by layer.
extension Compositor {
    /// The device name injected events carry.
    static let injectedDevice = "input.inject"

    /// Runs `binding.add`, `binding.remove`, `binding.list` and `input.inject`.
    func executeInput(_ command: Command) throws(ProtocolError) -> JSON {
        switch command {
        case .bindingAdd(let spec):
            return .object(["binding": .string(try addBinding(spec))])
        case .bindingRemove(let id, let layer):
            if let id {
                let removed = input.bindings.remove { $0.id == id }
                guard !removed.isEmpty else { throw ProtocolError(.invalidValue, "there is no binding '\(id)'; binding.list lists them") }
                return .object(["removed": .array(removed.map(JSON.string))])
            }
            let layer = layer ?? ""
            guard scene.contains(layer) else { throw ProtocolError(CoreError.unknownLayer(layer)) }
            return .object(["removed": .array(input.bindings.remove { $0.spec.layer == layer }.map(JSON.string))])
        case .bindingList(let layer):
            return .array(input.bindings.described(layer: layer))
        case .inputInject(let injected):
            return try inject(injected)
        default:
            throw ProtocolError(.internalError, "\(command.name) is not a command of input")
        }
    }

    /// Opens the seat's input devices when the settings say so (`opensInputDevices` and
    /// `[input] enabled`), their events going through the router on `loop`; takes the
    /// output's terminal's keyboard and VT switches when there is one. A failure is logged
    /// and shown in `stats`, never fatal: the daemon runs on without input.
    func openInputDevices(loop: EventLoop) -> InputDevices? {
        guard settings.opensInputDevices, settings.input.enabled else { return nil }
        let geometry = OutputGeometry(width: output.mode.width, height: output.mode.height, rotation: settings.outputRotation)
        let devices: InputDevices
        do {
            devices = try InputDevices(settings: settings.input, output: geometry, loop: loop, logger: logger) { [unowned self] event in
                input.handle(event)
                flush()
            }
        } catch {
            logger.error("input: \(error.message); the daemon runs on without input devices")
            input.deviceStatus = error.message
            return nil
        }
        input.deviceStatus = "opened"
        if let terminal = output.virtualTerminal {
            do { try terminal.silenceKeyboard() } catch { logger.warning("input: the terminal's keyboard stays on: \(error)") }
            devices.switchVirtualTerminal = { [weak terminal, logger] number in
                do { try terminal?.activate(number) } catch { logger.warning("input: cannot switch to VT \(number): \(error)") }
            }
            terminal.switched = { [weak devices] active in active ? devices?.resume() : devices?.suspend() }
        }
        return devices
    }

    /// Adds a binding of a layer that exists, within the limits; returns its id.
    func addBinding(_ spec: BindingSpec) throws(ProtocolError) -> String {
        if let layer = spec.layer, !scene.contains(layer) { throw ProtocolError(CoreError.unknownLayer(layer)) }
        return try input.bindings.add(spec, maximumCount: settings.limits.layers, maximumBytes: settings.limits.sceneMB << 20)
    }

    /// Adds the bindings a scene (the configured one, a restored journal) holds.
    func addBindings(_ specs: [BindingSpec]) throws(ProtocolError) {
        for spec in specs { _ = try addBinding(spec) }
    }

    /// Applies a binding's commands as a client's `transaction` is applied (the same
    /// builder, checks and limits), committed at media time `time`; returns the transaction's id.
    func apply(_ spec: TransactionSpec, at time: Double) throws(ProtocolError) -> UInt64 {
        try sceneHost.commit(spec, owner: nil, at: time)
    }

    /// Removes the bindings whose layer is gone.
    func pruneBindings() {
        let removed = input.bindings.prune(exists: scene.contains)
        if !removed.isEmpty { logger.debug("bindings removed with their layers: \(removed.joined(separator: ", "))") }
    }

    /// Feeds an injected event to the input pipeline; the reply gives the media time it
    /// happened at.
    private func inject(_ injected: InjectedInput) throws(ProtocolError) -> JSON {
        let kernel = injected.time ?? EventLoop.monotonicSeconds
        let device = Self.injectedDevice
        var time = now
        switch injected {
        case .touch(let phase, let id, let point, _):
            let known = input.touches[id]
            if phase == .down, known != nil {
                throw ProtocolError(.invalidValue, "input.inject: touch \(id) is down already; lift it (phase up) or give another \"touch\" id")
            }
            if phase != .down, known == nil {
                throw ProtocolError(
                    .invalidValue, "input.inject: touch \(id) is not down; a touch goes down (phase down) before it moves, lifts or is cancelled")
            }
            let event = TouchEvent(time: kernel, phase: TouchEvent.Phase(rawValue: phase.rawValue)!, id: id, point: point ?? known!, device: device)
            time = input.handle(.touch(event), measured: injected.time != nil)
        case .pointer(let action, let point, _):
            let kind: PointerEvent.Kind =
                switch action {
                case .motion: .motion
                case .button(let code, let pressed): .button(code, pressed: pressed)
                case .axis(let dx, let dy): .axis(dx: dx, dy: dy)
                }
            time = input.handle(.pointer(PointerEvent(time: kernel, kind: kind, point: point ?? input.pointer, device: device)), measured: injected.time != nil)
        case .key(let identity, let pressed, _):
            for down in pressed.map({ [$0] }) ?? [true, false] {
                let event: KeyEvent
                switch identity {
                case .keycode(let code):
                    event = try input.keyboardForInjection().key(code, pressed: down, time: kernel, device: device)
                case .keysym(let name, let text):
                    event = KeyEvent(time: kernel, keycode: 0, keysym: name, text: down ? text : "", pressed: down, device: device)
                }
                time = input.handle(.key(event), measured: injected.time != nil)
            }
        }
        return .object(["time": .number(time)])
    }

    // MARK: Events

    /// Whether any client subscribed to the event `name`.
    func hasSubscribers(_ name: Event.Name) -> Bool { subscribers.wants(name) }

    /// Sends an input event to its subscribers: those whose pattern that matches it has
    /// no `layers` filter, or one that holds `layer` or one of its ancestors.
    func deliver(_ event: Event, layer: String?) {
        subscribers.send(event, layer: layer, ancestry: ancestry)
    }

    /// `layer` and its ancestors, nearest first.
    private func ancestry(of layer: String) -> [String] {
        var chain = [layer]
        while let parent = (try? scene.parent(of: chain.last!)) ?? nil { chain.append(parent) }
        return chain
    }
}
