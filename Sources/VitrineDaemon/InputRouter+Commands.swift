import VitrineCore
import VitrineInput
import VitrineProtocol
import VitrineSceneHost
import VitrineSystem

/// Bindings and `input.inject`: the input commands.
extension InputRouter {
    /// The device name injected events carry.
    static let injectedDevice = "input.inject"

    /// Runs `binding.add`, `binding.remove`, `binding.list` and `input.inject`; the
    /// bindings stay within `limits` (as many as layers, as many bytes as a scene).
    func execute(_ command: Command, limits: DaemonSettings.Limits) throws(ProtocolError) -> JSON {
        switch command {
        case .bindingAdd(let spec):
            return .object(["binding": .string(try addBinding(spec, limits: limits))])
        case .bindingRemove(let id, let layer):
            if let id {
                let removed = bindings.remove { $0.id == id }
                guard !removed.isEmpty else { throw ProtocolError(.invalidValue, "there is no binding '\(id)'; binding.list lists them") }
                return .object(["removed": .array(removed.map(JSON.string))])
            }
            let layer = layer ?? ""
            guard sceneHost.scene.contains(layer) else { throw ProtocolError(CoreError.unknownLayer(layer)) }
            return .object(["removed": .array(bindings.remove { $0.spec.layer == layer }.map(JSON.string))])
        case .bindingList(let layer):
            return .array(bindings.described(layer: layer))
        case .inputInject(let injected):
            return try inject(injected)
        default:
            throw ProtocolError(.internalError, "\(command.name) is not a command of input")
        }
    }

    /// Adds a binding of a layer that exists, within the limits; returns its id.
    func addBinding(_ spec: BindingSpec, limits: DaemonSettings.Limits) throws(ProtocolError) -> String {
        if let layer = spec.layer, !sceneHost.scene.contains(layer) { throw ProtocolError(CoreError.unknownLayer(layer)) }
        return try bindings.add(spec, maximumCount: limits.layers, maximumBytes: limits.sceneMB << 20)
    }

    /// Adds the bindings a scene (the configured one, a restored journal) holds.
    func addBindings(_ specs: [BindingSpec], limits: DaemonSettings.Limits) throws(ProtocolError) {
        for spec in specs { _ = try addBinding(spec, limits: limits) }
    }

    /// Removes the bindings whose layer is gone.
    func pruneBindings() {
        let removed = bindings.prune(exists: sceneHost.scene.contains)
        if !removed.isEmpty { logger.debug("bindings removed with their layers: \(removed.joined(separator: ", "))") }
    }

    /// The device name the screen keyboard's key events carry.
    static let screenKeyboardDevice = "osk"

    /// Presses or releases the evdev key `code` for the screen keyboard: a key event read
    /// through the keymap, to the window that has the keys, scripts and key bindings.
    func typeKey(_ code: UInt32, pressed: Bool) {
        guard let keyboard = try? keyboardForInjection() else { return }
        handle(.key(keyboard.key(code, pressed: pressed, time: EventLoop.monotonicSeconds, device: Self.screenKeyboardDevice)), measured: false)
    }

    /// Feeds an injected event to the input pipeline; the reply gives the media time it
    /// happened at.
    private func inject(_ injected: InjectedInput) throws(ProtocolError) -> JSON {
        let kernel = injected.time ?? EventLoop.monotonicSeconds
        let device = Self.injectedDevice
        var time = sceneHost.now
        switch injected {
        case .touch(let phase, let id, let point, _):
            let known = touches[id]
            if phase == .down, known != nil {
                throw ProtocolError(.invalidValue, "input.inject: touch \(id) is down already; lift it (phase up) or give another \"touch\" id")
            }
            if phase != .down, known == nil {
                throw ProtocolError(
                    .invalidValue, "input.inject: touch \(id) is not down; a touch goes down (phase down) before it moves, lifts or is cancelled")
            }
            let event = TouchEvent(time: kernel, phase: TouchEvent.Phase(rawValue: phase.rawValue)!, id: id, point: point ?? known!, device: device)
            time = handle(.touch(event), measured: injected.time != nil)
        case .pointer(let action, let point, _):
            let kind: PointerEvent.Kind =
                switch action {
                case .motion: .motion
                case .button(let code, let pressed): .button(code, pressed: pressed)
                case .axis(let dx, let dy): .axis(dx: dx, dy: dy)
                }
            time = handle(.pointer(PointerEvent(time: kernel, kind: kind, point: point ?? pointer, device: device)), measured: injected.time != nil)
        case .key(let identity, let pressed, _):
            for down in pressed.map({ [$0] }) ?? [true, false] {
                let event: KeyEvent
                switch identity {
                case .keycode(let code):
                    event = try keyboardForInjection().key(code, pressed: down, time: kernel, device: device)
                case .keysym(let name, let text):
                    event = KeyEvent(time: kernel, keycode: 0, keysym: name, text: down ? text : "", pressed: down, device: device)
                }
                time = handle(.key(event), measured: injected.time != nil)
            }
        }
        return .object(["time": .number(time)])
    }
}
