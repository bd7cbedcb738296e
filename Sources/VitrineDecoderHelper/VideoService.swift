import Glibc
import VitrineJSON
import VitrineSystem
import VitrineVideo
import VitrineYUV

/// The video helper's side (`vitrine-decoder --video`): plays one video for the daemon.
/// Its first message says what (a stream's URI, or the file passed as descriptor 4); it
/// then sends each decoded frame in a slot of shared memory (`VideoRing`) — the memfd
/// GStreamer's converter wrote it into, or a copy where it lies elsewhere — with at most
/// `VideoRing.ahead` frames the daemon has not released, so that a paused or slow reader
/// holds the decoder back; seeks, sizes and play/pause come as they are asked.
///
/// It knows no decoder itself: the executable passes GStreamer's in, so that the daemon,
/// which links this module for its client, links no decoder.
public enum VideoService {
    /// Makes the decoder of `source` from `uri`, and the descriptor that becomes readable
    /// when it may have news.
    public typealias Open = (_ source: VideoSource, _ uri: String) throws(VideoError) -> (decoder: any VideoDecoding, wakeup: CInt)

    /// Serves the daemon on `socket` until it closes its end; returns the exit status (0
    /// then, 1 when the socket fails or the daemon sends something malformed).
    public static func run(socket: CInt, file: CInt, open: Open) -> Int32 {
        let first: VideoRequest
        switch receive(on: socket) {
        case .success(let request?): first = request
        case .success(nil): return 0
        case .failure(let message): return report(message)
        }
        guard case .open(let uri, let width, let height, let letterbox, let audio) = first else { return report("the first request opens no video") }
        let location: VideoSource.Location = uri.map { .stream($0) } ?? .file("/proc/self/fd/\(file)")
        let source = VideoSource(location, width: width, height: height, letterbox: letterbox, audio: audio)
        let session: Session
        do {
            let (decoder, wakeup) = try open(source, uri ?? "file:///proc/self/fd/\(file)")
            session = Session(socket: socket, decoder: decoder, wakeup: wakeup)
        } catch {
            guard send(.failure(message: error.message, debug: error.debug), on: socket) else { return 1 }
            // (the daemon closes its end once it has read why)
            while case .success(_?) = receive(on: socket) {}
            return 0
        }
        return session.run()
    }

    /// One video being played.
    private final class Session {
        /// A slot's memory: a frame of GStreamer's pool (held until released), or the
        /// helper's own memory that frames from elsewhere are copied into.
        struct Slot {
            /// The memfd bound to the slot (device, inode), as the daemon has it.
            var memfd: (dev: UInt64, ino: UInt64)?
            /// The helper's memory, for copies.
            var memory: SharedMemory?
            /// The frame the daemon reads, kept from the pool until it is released.
            var held: DecodedFrame?
            var inUse = false
            var lastUsed = 0
        }

        let socket: CInt
        let decoder: any VideoDecoding
        let wakeup: CInt
        var slots = Array(repeating: Slot(), count: VideoRing.slots)
        var sent = 0
        var generation = 0
        var endSent: Int?
        var durationSent = false
        var failed = false

        init(socket: CInt, decoder: any VideoDecoding, wakeup: CInt) { (self.socket, self.decoder, self.wakeup) = (socket, decoder, wakeup) }

        func run() -> Int32 {
            while true {
                var ready = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0)]
                guard retryingOnInterrupt({ poll(&ready, 2, -1) }) >= 0 else { return report("poll: \(String(cString: strerror(errno)))") }
                if ready[0].revents != 0 {
                    switch receive(on: socket) {
                    case .success(let request?): apply(request)
                    case .success(nil): return 0
                    case .failure(let message): return report(message)
                    }
                }
                // (cleared before the frames are taken: news that comes meanwhile wakes the
                // next poll, and news while every slot is taken does not spin it)
                if ready[1].revents != 0 {
                    var counter: UInt64 = 0
                    _ = read(wakeup, &counter, 8)
                }
                guard pump() else { return 1 }
            }
        }

        private func apply(_ request: VideoRequest) {
            switch request {
            case .open: break
            case .seek(let position, let generation):
                self.generation = generation
                endSent = nil
                decoder.seek(to: position)
            case .resize(let width, let height): decoder.resize(width: width, height: height)
            case .play(let on): decoder.setPlaying(on)
            case .release(let slot):
                slots[slot].inUse = false
                slots[slot].held = nil
            }
        }

        /// Sends what the decoder has: its failure, its duration, frames while fewer than
        /// `VideoRing.ahead` are unreleased, the end. False when the socket failed.
        private func pump() -> Bool {
            guard !failed else { return true }
            if let failure = decoder.takeFailure() {
                failed = true
                return send(.failure(message: failure.message, debug: failure.debug), on: socket)
            }
            while slots.count(where: \.inUse) < VideoRing.ahead, let frame = decoder.takeFrame(waiting: 0) {
                if !durationSent, let duration = decoder.duration {
                    durationSent = true
                    guard send(.duration(duration), on: socket) else { return false }
                }
                guard place(frame) else { return false }
            }
            if decoder.isDrained, endSent != generation {
                endSent = generation
                return send(.end(generation: generation), on: socket)
            }
            return true
        }

        /// Sends `frame` in a slot: where it lies, when its memfd is one the daemon may map
        /// (bound to a slot the first time it comes); else copied into the helper's own.
        private func place(_ frame: DecodedFrame) -> Bool {
            var planes: [Int]
            let slot: Int
            if let shared = frame.shared, let memfd = Self.identity(shared.descriptor) {
                if let bound = slots.indices.first(where: { !slots[$0].inUse && slots[$0].memfd.map { $0 == memfd } == true }) {
                    slot = bound
                } else {
                    slot = leastRecentlyUsed()
                    slots[slot] = Slot(memfd: memfd)
                    guard send(.slot(slot, bytes: shared.size), descriptors: [shared.descriptor], on: socket) else { return false }
                }
                planes = shared.planes
                slots[slot].held = frame
            } else {
                let copy = FrameCopy(frame.picture)
                if let fits = slots.indices.first(where: { !slots[$0].inUse && (slots[$0].memory?.size ?? 0) >= copy.bytes }) {
                    slot = fits
                } else {
                    slot = leastRecentlyUsed()
                    slots[slot] = Slot()
                    do {
                        let memory = try SharedMemory(name: "vitrine-video", size: copy.bytes)
                        let shared = try memory.shareSealingSize()
                        slots[slot].memory = memory
                        let sent = withExtendedLifetime(shared) {
                            VideoService.send(.slot(slot, bytes: copy.bytes), descriptors: [shared.rawValue], on: socket)
                        }
                        guard sent else { return false }
                    } catch {
                        failed = true
                        return send(.failure(message: "a frame cannot be handed over: \(error.message)", debug: ""), on: socket)
                    }
                }
                planes = copy.write(into: slots[slot].memory!.bytes)
            }
            sent += 1
            (slots[slot].inUse, slots[slot].lastUsed) = (true, sent)
            return send(frameReport(frame, slot: slot, planes: planes), on: socket)
        }

        /// The report of `frame` in `slot`, its planes at `planes`.
        private func frameReport(_ frame: DecodedFrame, slot: Int, planes: [Int]) -> VideoReport {
            switch frame.picture {
            case .bgra(let surface):
                return .frame(
                    slot: slot, offset: planes[0], width: surface.width, height: surface.height, stride: surface.stride, time: frame.time,
                    generation: generation)
            case .yuv(let yuv):
                let strides = yuv.layout == .i420 ? [yuv.uStride, yuv.vStride] : [yuv.uStride]
                let chroma = zip(planes.dropFirst(), strides).map { YUVPlanes.Plane(offset: $0, stride: $1) }
                return .frame(
                    slot: slot, offset: planes[0], width: yuv.width, height: yuv.height, stride: yuv.lumaStride, time: frame.time,
                    generation: generation, yuv: YUVPlanes(layout: yuv.layout, matrix: yuv.matrix, fullRange: yuv.fullRange, chroma: chroma))
            }
        }

        /// The released slot used longest ago (there is one: fewer than `VideoRing.ahead` are in use).
        private func leastRecentlyUsed() -> Int {
            slots.indices.filter { !slots[$0].inUse }.min { slots[$0].lastUsed < slots[$1].lastUsed }!
        }

        /// A memfd's device and inode: the same memory whatever its descriptor's number.
        private static func identity(_ descriptor: CInt) -> (dev: UInt64, ino: UInt64)? {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return nil }
            return (UInt64(info.st_dev), UInt64(info.st_ino))
        }
    }

    private static func receive(on socket: CInt) -> Result<VideoRequest?, Failure> {
        let message: (bytes: [UInt8], descriptors: [OwnedDescriptor])?
        do { message = try DescriptorMessages.receive(on: socket, limit: VideoRing.messageLimit) } catch { return .failure(Failure(error.message)) }
        guard let message else { return .success(nil) }
        guard message.descriptors.isEmpty, let json = try? JSON(parsing: String(decoding: message.bytes, as: UTF8.self)), let request = VideoRequest(json)
        else { return .failure(Failure("a malformed request came (\(message.bytes.count) bytes, \(message.descriptors.count) descriptors)")) }
        return .success(request)
    }

    private struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private static func send(_ report: VideoReport, descriptors: [CInt] = [], on socket: CInt) -> Bool {
        do { try DescriptorMessages.send(Array(report.json.text.utf8), descriptors: descriptors, on: socket) } catch {
            _ = VideoService.report(error.message)
            return false
        }
        return true
    }

    private static func report(_ message: String) -> Int32 {
        var line = Array("vitrine-decoder: \(message)\n".utf8)
        _ = write(2, &line, line.count)
        return 1
    }

    private static func report(_ failure: Failure) -> Int32 { report(failure.message) }
}
