import FoundationEssentials
import FuzzSupport
import VitrineCore
import VitrineProtocol

/// libFuzzer's entry point: the input is a scene file's bytes, read as
/// `SceneDescription(contentsOf:)` reads them and shown as `vitrined render` shows them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScene(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let description = try? SceneDescription(json: JSON(parsing: bytes)) else { return 0 }
    show(description, size: description.size ?? Size(width: 1280, height: 800))
    return 0
}
