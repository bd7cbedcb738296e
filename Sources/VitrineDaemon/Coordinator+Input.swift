import Logging
import VitrineCore
import VitrineInput
import VitrineOutput
import VitrineProtocol
import VitrineSceneHost
import VitrineSystem

/// The seat's input devices, whose events go through the input router.
extension Coordinator {
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

}
