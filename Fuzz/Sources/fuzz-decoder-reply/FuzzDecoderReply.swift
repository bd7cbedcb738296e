import VitrineDecoderHelper
import VitrineImage
import VitrineSystem

/// libFuzzer's entry point: the input is what a decoder helper that has been taken over
/// could send the daemon. Its first two bytes give the size of the sealed memfd that comes
/// with it (in 64-byte units; none for 0), the rest is the reply, read as the daemon reads
/// one for a request with a 1 MB budget; every pixel of a picture it accepts is read, as
/// drawing it would.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoderReply(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let memorySize = (Int(bytes[0]) << 8 | Int(bytes[1])) * 64
    var descriptors: [OwnedDescriptor] = []
    if memorySize > 0, let memory = try? SharedMemory(name: "fuzz", size: memorySize), let sealed = try? memory.seal() {
        descriptors.append(sealed)
    }
    let request = DecodeRequest(id: 1, name: "/content/fuzz.png", target: nil, output: TargetSize(width: 64, height: 64), budget: 1 << 20)
    guard case .success(let picture) = DecoderClient.result(of: (Array(bytes[2...]), descriptors), for: request) else { return 0 }
    var sum: UInt32 = 0
    for frame in picture.frames {
        for y in 0..<frame.height {
            for x in 0..<frame.width { sum &+= frame.pixels[y * frame.stride + x] }
        }
    }
    _ = picture.frame(at: Double(sum & 0xFF) / 16)
    return 0
}
