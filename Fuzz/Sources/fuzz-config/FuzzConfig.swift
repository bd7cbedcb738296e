import FoundationEssentials
import FuzzSupport
import VitrineConfig
import VitrineCore
import VitrineText

/// Where the fuzzed file claims to be: a directory that does not exist, so that a relative
/// `[scene] file` names no file.
let source = "/nonexistent/vitrine-fuzz/vitrine.toml"

/// libFuzzer's entry point: the input is a configuration file's bytes, checked as
/// `vitrined` checks its file (`Configuration.loadForDaemon`: the text layer kind is known,
/// the rolling number's is not) and its initial scene then shown as `Coordinator.init`
/// shows it. A refusal is rendered as the message the daemon logs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let configuration: Configuration
    do {
        configuration = try Configuration(contents: bytes, source: source, kinds: [TextLayer.textLayerKind])
    } catch {
        _ = error.description
        return 0
    }
    if let content = configuration.scene.content {
        let pixels = configuration.output.headlessSize
        show(
            content, configuration: configuration.sceneConfiguration, rolling: configuration.rollingNumberDefaults,
            size: Size(width: Double(pixels.width), height: Double(pixels.height)),
            background: configuration.scene.background ?? configuration.output.background)
    }
    return 0
}
