import Glibc
import VitrineCodecs
import VitrineDecoderHelper
import VitrineGStreamer
import VitrineImage
import VitrineProtocol
import VitrineSystem
import VitrineVideo

/// vitrine-decoder: the decoder helper `vitrined` starts (docs/CONTENT.md, "The decoder
/// helper"). For images, it takes requests on descriptor 3, reads each file from the
/// descriptor that comes with it, and hands the picture back in sealed shared memory;
/// with `--video`, it plays one video (the file as descriptor 4, or a stream with
/// `--network`) into a ring of shared memory. It runs with a data limit
/// (`--memory-bytes`), few descriptors and a system-call filter that leaves it no
/// network (but a stream's), no programs and no devices (but a sound card, `--audio`).

/// Decodes `bytes` for `request`, its frames from `frames`: a still for the size it is shown at (the output's when
/// not known yet; an SVG at its own), an animation at full size; refused before anything
/// is decoded when the header says it would not fit the budget.
func decode(_ bytes: [UInt8], _ request: DecodeRequest, into frames: FrameAllocator) -> Result<Picture, ProtocolError> {
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
        return .success(try ImageDecoder.decode(bytes, fitting: target, byteLimit: request.budget, frames: frames))
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

let arguments = Array(CommandLine.arguments.dropFirst())
let options = Set(arguments.dropFirst(2))
guard arguments.count >= 2, arguments[0] == "--memory-bytes", let memory = Int(arguments[1]), memory > 0,
    options.isSubset(of: ["--video", "--network", "--audio"]), options.contains("--video") || options.isEmpty
else {
    fail("usage: vitrine-decoder --memory-bytes N [--video [--network] [--audio]] (vitrined starts it with its socket as descriptor 3)")
}
var info = stat()
guard fstat(3, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK else {
    fail("descriptor 3 is not a socket; vitrined starts this program, it is not run by hand")
}
if options.contains("--video") {
    // A video: GStreamer scans its registry in this process (no scanner program to run)
    // and loads its plugins before the filter closes the door.
    setenv("GST_REGISTRY_FORK", "no", 1)
    GStreamer.prepare()
    var allowance: Confinement.Allowance = []
    if options.contains("--network") { allowance.insert(.network) }
    if options.contains("--audio") { allowance.formUnion([.unixSockets, .deviceControl]) }
    do {
        try Confinement.limitData(to: memory)
        try Confinement.limitDescriptors(to: 256)
        try Confinement.confineDecoder(allowing: allowance)
    } catch {
        fail(error.message)
    }
    exit(
        VideoService.run(socket: 3, file: 4) { source, uri throws(VideoError) in
            let decoder = try GStreamerDecoder(source, uri: uri, queued: VideoRing.appsinkFrames, sharesFrames: true)
            return (decoder, decoder.wakeup)
        })
}
do {
    try Confinement.limitData(to: memory)
    try Confinement.limitDescriptors(to: 64)
    try Confinement.confineDecoder()
} catch {
    fail(error.message)
}
exit(DecoderService.run(socket: 3, decode: decode))
