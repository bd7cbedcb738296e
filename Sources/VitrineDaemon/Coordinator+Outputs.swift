import VitrineCore
import VitrineDecoderHelper
import VitrineOutputSet
import VitrineProtocol
import VitrineSceneHost
import VitrineSystem
import VitrineWindowHost

/// What the output set says, taken on the loop: a frame's start advances the scene, its
/// frames carry the bindings' latency, outputs plugged in show their scenes.
extension Coordinator {
    func take(_ notice: OutputNotice) {
        switch notice {
        case .frameStarting(let time):
            if clock.mode == .realtime { applyScheduled(upTo: time) }
            signage?.tick(at: time)
            sceneHost.advance(to: time)
        case .rendering(let head, let frame):
            if head === outputSet.heads.first { input.latency.rendering(frame: frame, at: EventLoop.monotonicSeconds) }
        case .rendered(let head, let frame, let presented):
            if presented {
                hooks.framePresented?(now)
                windows?.framePresented()
                if head === outputSet.heads.first { windows?.pointerMayHaveMoved(at: now) }
            } else if head === outputSet.heads.first {
                input.latency.notPresented(frame: frame)
            }
        case .frameEnded(let time, let animating):
            if !animating, clock.mode == .realtime, let delay = content.videos.nextChange { outputSet.requestFrame(after: delay, now: time) }
            content.loader.loadMisses()
        case .shown(let shown):
            input.latency.shown(shown)
        case .headAdded(let head):
            if !head.restored {
                do { try showScene(of: head) } catch { logger.error("\(error.message)") }
            }
            identification?.showWhereBlank()
            journal?.noteChanges()
        case .sceneChanged:
            identification?.committed(addsLayers: false, removesLayers: true)
            sceneHost.advance(to: now)
            journal?.noteChanges()
        case .powered(let any):
            windows?.outputsPowered = any
        case .event(let event, afterReply: true):
            afterReply.events.append(event)
        case .event(let event, afterReply: false):
            broadcast(event)
        }
    }
}

extension DaemonSettings {
    /// What the output set takes of the settings.
    var outputSet: OutputSet.Settings {
        OutputSet.Settings(outputs: outputs, wall: wall, background: background, hotplugGrace: hotplugGrace)
    }

    /// What the content host takes of the settings.
    var content: ContentHost.Settings {
        ContentHost.Settings(memoryBytes: limits.memoryMB << 20, networkVideo: networkVideo)
    }

    /// How images are decoded: by `decoderExecutable`, whose helpers may hold what
    /// `limits.memory_mb` allows images and as much again for the decoders' own work.
    var decoder: DecoderClient.Settings {
        var decoder = DecoderClient.Settings(executable: decoderExecutable)
        decoder.memoryBytes = 2 * (limits.memoryMB << 20) + (128 << 20)
        return decoder
    }

    /// What the window host takes of the settings.
    var windowHost: WindowHost.Settings {
        WindowHost.Settings(
            compositor: compositor, keymap: input.keymap, clients: clients, allowCommands: launcher.allowCommands, waylandSocket: waylandSocketPath)
    }

    /// The size and rate of emulated outputs whose table gives no mode.
    public var emulatedOutputs: EmulatedOutputs.Defaults {
        EmulatedOutputs.Defaults(width: headlessWidth, height: headlessHeight, rate: headlessRate)
    }
}
