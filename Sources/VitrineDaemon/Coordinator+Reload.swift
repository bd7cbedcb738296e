import VitrineConfig
import VitrineCore
import VitrineOutputSet
import VitrineSceneHost
import VitrineRender

/// A reloaded configuration, taken while running (`config.reload`, SIGHUP).
extension Coordinator {
    /// Takes a new `[[outputs]]` table, which emulated outputs follow.
    func follow(outputs: [Configuration.OutputEntry]) {
        settings.outputs = outputs
        outputSet.settings = settings.outputSet
    }

    /// Takes the reloadable parts of new settings: every one but the outputs, the socket,
    /// the content roots, the font directories, logging and the journal. The initial scene
    /// is what `scene.reset` shows next; the running scene stays. Each owner takes its part.
    func apply(reloaded fresh: DaemonSettings) {
        settings.screenshotDirectory = fresh.screenshotDirectory
        settings.launcher = fresh.launcher
        settings.compositor.pingTimeout = fresh.compositor.pingTimeout
        settings.compositor.rules = fresh.compositor.rules
        settings.compositor.inputMethodClients = fresh.compositor.inputMethodClients
        settings.compositor.screencopyClients = fresh.compositor.screencopyClients
        settings.limits = fresh.limits
        settings.hotplugGrace = fresh.hotplugGrace
        settings.restartNeeded = fresh.restartNeeded
        settings.rolling = fresh.rolling
        settings.spring = fresh.spring
        settings.defaultFontFamily = fresh.defaultFontFamily
        if fresh.imageDirectory == settings.imageDirectory {
            (settings.initialScene, settings.initialSceneOrigin) = (fresh.initialScene, fresh.initialSceneOrigin)
        }
        settings.background = fresh.background
        settings.identify = fresh.identify
        settings.sceneConfiguration = fresh.sceneConfiguration
        settings.signage = fresh.signage
        switcher.scenes = fresh.signage.scenes
        switcher.background = fresh.background
        if let signage { signage.take(signageLibrary, at: now) } else { startSignage() }

        windows?.apply(reloaded: settings.compositor, allowCommands: settings.launcher.allowCommands)
        outputSet.settings = settings.outputSet
        sceneHost.settings.spring = settings.spring
        content.settings = settings.content
        content.rebudgetImages()
        content.loader.retryFailures()
        followIdentification()
        StandardKinds.register(in: scene, rolling: settings.rolling, fontFamily: settings.defaultFontFamily)
        scene.configuration = settings.sceneConfiguration
        var setup = Transaction(disableActions: true)
        setup.set(root, "backgroundColor", .color(settings.background))
        _ = try? scene.commit(setup, at: now)
        afterReply.frame = true
        flush()
    }
}
