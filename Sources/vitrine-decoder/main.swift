import Glibc
import VitrineCodecs
import VitrineDecoderHelper
import VitrineImage
import VitrineProtocol
import VitrineSystem

/// vitrine-decoder: the image decoder helper `vitrined` starts (docs/CONTENT.md, "The
/// decoder helper"). It takes requests on descriptor 3, reads each file from the
/// descriptor that comes with it, and hands the picture back in sealed shared memory. It
/// runs with a data limit (`--memory-bytes`), few descriptors and a system-call filter
/// that leaves it no network, no programs and no devices.

/// Decodes `bytes` for `request`: a still for the size it is shown at (the output's when
/// not known yet; an SVG at its own), an animation at full size; refused before anything
/// is decoded when the header says it would not fit the budget.
func decode(_ bytes: [UInt8], _ request: DecodeRequest) -> Result<Picture, ProtocolError> {
    let path = request.name
    do throws(ImageError) {
        let probe = try ImageDecoder.probe(bytes)
        let target = request.target ?? (probe.format == .svg ? nil : request.output)
        let needed = ImageDecoder.decodedBytes(of: probe, fitting: target)
        guard needed <= request.budget else {
            let frames = probe.frames > 1 ? " in \(probe.frames) frames" : ""
            return .failure(
                ProtocolError(
                    .limitExceeded,
                    "\(path) is a \(probe.format.name) of \(probe.width)×\(probe.height)\(frames), \(needed >> 20) MB decoded, over limits.memory_mb (\(request.budget >> 20) MB of images); nothing was decoded"
                ))
        }
        return .success(try ImageDecoder.decode(bytes, fitting: target, byteLimit: request.budget))
    } catch {
        let code: ProtocolError.Code = error.kind == .tooLarge ? .limitExceeded : .contentFailed
        let hint = error.kind == .unsupported ? "; contents takes PNG, JPEG, WebP, GIF and SVG files" : ""
        return .failure(ProtocolError(code, "\(path): \(error.message)\(hint)"))
    }
}

func fail(_ message: String) -> Never {
    var line = Array("vitrine-decoder: \(message)\n".utf8)
    _ = write(2, &line, line.count)
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, arguments[1] == "--memory-bytes", let memory = Int(arguments[2]), memory > 0 else {
    fail("usage: vitrine-decoder --memory-bytes N (vitrined starts it with its socket as descriptor 3)")
}
var info = stat()
guard fstat(3, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK else {
    fail("descriptor 3 is not a socket; vitrined starts this program, it is not run by hand")
}
do {
    try Confinement.limitData(to: memory)
    try Confinement.limitDescriptors(to: 64)
    try Confinement.confineDecoder()
} catch {
    fail(error.message)
}
exit(DecoderService.run(socket: 3, decode: decode))
