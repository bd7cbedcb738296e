import VitrineCodecs
import VitrineImage

/// libFuzzer's entry point: the input is an image file's bytes, read as the daemon's content
/// loader reads one: its header probed and checked against a 64 MB budget, then decoded
/// for a 256 × 256 layer (PNG, JPEG, WebP, GIF or SVG, by its first bytes), and an
/// animation's frame looked up.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let target = TargetSize(width: 256, height: 256), budget = 64 << 20
    guard let probe = try? ImageDecoder.probe(bytes), ImageDecoder.decodedBytes(of: probe, fitting: target) <= budget,
        let picture = try? ImageDecoder.decode(bytes, fitting: target, byteLimit: budget)
    else { return 0 }
    _ = picture.frame(at: 1.25)
    return 0
}
