import Logging
import VitrineCore
import VitrineInput
import VitrineOutput
import VitrineOutputSet
import VitrineProtocol

/// A window output's events in the daemon (`--backend x11`, `wayland`): its size is the
/// root layer's, its pointer, touches and keys go through the input pipeline as a
/// device's do (bindings, `layers` subscribers), and closing it stops the daemon.
///
/// Keys are read with the display server's keymap (`WindowOutput.keymap`, and `.keymap`
/// when it changes), else with `[input] keymap`. Events carry the output's name as
/// their device.
final class WindowInput {
    private let input: InputRouter
    private let logger: Logger
    /// The `[input] keymap` keys are read with while the display server gives none.
    private let keymap: InputSettings.Keymap
    /// Called after each event that went through the input pipeline (the coordinator's
    /// `flush`), and with the new size when the window is resized.
    private let handled: () -> Void
    private let resized: (OutputMode) -> Void
    private let stop: (String) -> Void
    private var keyboard: Keyboard?
    private let window: WindowOutput
    private let device: String

    /// Takes `window`'s events into `input`; `stop` is called with the reason when it closes.
    init(
        window: WindowOutput, input: InputRouter, keymap: InputSettings.Keymap, logger: Logger, handled: @escaping () -> Void,
        resized: @escaping (OutputMode) -> Void, stop: @escaping (String) -> Void
    ) {
        self.input = input
        self.keymap = keymap
        self.logger = logger
        self.handled = handled
        self.resized = resized
        self.stop = stop
        self.window = window
        device = window.name
        if let text = window.keymap { useKeymap(text) }
        window.events = { [unowned self] event in handle(event) }
    }

    private func useKeymap(_ text: String) {
        do { keyboard = try Keyboard(keymapText: text) } catch {
            logger.warning("window: \(error.message); keys are read with [input] keymap instead")
        }
    }

    private func handle(_ event: WindowEvent) {
        switch event {
        case .resized(let mode):
            resized(mode)
            return
        case .closed(let reason):
            stop(reason)
            return
        case .keymap(let text):
            useKeymap(text)
            return
        case .focusLost:
            keyboard?.reset()
            return
        case .key(let time, let code, let pressed):
            if keyboard == nil { keyboard = try? Keyboard(keymap: keymap) }
            guard let keyboard else { return }
            input.handle(.key(keyboard.key(code, pressed: pressed, time: time, device: device)))
        case .pointerMotion(let time, let x, let y):
            input.handle(.pointer(PointerEvent(time: time, kind: .motion, point: clamped(x, y), device: device)))
        case .pointerButton(let time, let button, let pressed, let x, let y):
            input.handle(.pointer(PointerEvent(time: time, kind: .button(button, pressed: pressed), point: clamped(x, y), device: device)))
        case .pointerAxis(let time, let dx, let dy, let x, let y):
            input.handle(.pointer(PointerEvent(time: time, kind: .axis(dx: dx, dy: dy), point: clamped(x, y), device: device)))
        case .touch(let time, let phase, let id, let x, let y):
            let phase = TouchEvent.Phase(rawValue: phase.rawValue) ?? .cancel
            input.handle(.touch(TouchEvent(time: time, phase: phase, id: id, point: Point(x: x, y: y), device: device)))
        }
        handled()
    }

    /// A pointer position within the output (a held button reports positions outside it).
    private func clamped(_ x: Double, _ y: Double) -> Point {
        let mode = window.mode
        return Point(x: min(max(x, 0), Double(mode.width - 1)), y: min(max(y, 0), Double(mode.height - 1)))
    }
}

extension Coordinator {
    /// The output has a new size (a window resized): the root layer's bounds follow, the
    /// next frame is drawn whole, and subscribers get `output.resized`.
    func outputResized(to mode: OutputMode) {
        let size = Size(width: Double(mode.width), height: Double(mode.height))
        // A wall's canvas keeps its size: the window shows more or less of it.
        if outputSet.primary.viewport == nil {
            do { try scene.resizeRoot(id: root, size: size) } catch {
                logger.error("the root layer cannot take the output's new size \(mode): \(error)")
            }
        }
        input.recognizer.area = Rect(origin: .zero, size: size)
        logger.info("\(output.name): now \(mode.width)x\(mode.height)")
        outputSet.primary.pipeline.invalidate()
        requestFrame()
        broadcast(.outputResized(output: output.name, root: root, size: size))
    }
}
