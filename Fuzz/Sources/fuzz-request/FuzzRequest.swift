import VitrineProtocol

/// libFuzzer's entry point: the input is one request line as the daemon's socket server
/// hands it to `Request.decode`, and a refusal is written as the reply line it would send.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    switch Request.decode(UnsafeBufferPointer(start: data, count: size)) {
    case .success: break
    case .failure(let failure): _ = Wire.failure(id: failure.id, failure.error)
    }
    return 0
}
