import Glibc
import VitrineJSON
import VitrineRaster
import VitrineSystem
import VitrineVideo
import VitrineYUV

/// The daemon's side of a video decoded in a helper process (`vitrine-decoder --video`,
/// one per player): a file or stream that crashes, hangs or floods the decoder takes only
/// that helper down, never the process that owns the screen.
///
/// The helper writes frames into a few slots of shared memory (`VideoRing`), sealed
/// against resizing, which the frames are drawn from as they are (no copy); a slot is
/// written again only after the surface drawn from it has gone. Reports are read when the
/// player asks for a frame, so nothing here waits unless asked to. A helper that ends
/// fails the decoder with how it ended (`VideoError.decoderEnded`); one that breaks the
/// protocol is stopped and fails it with what it did.
public final class RemoteVideoDecoder: VideoDecoding {
    /// The helper's process id.
    public var processID: pid_t { helper.process.pid }
    public private(set) var duration: Double?
    private let helper: Helper
    private let link: Link
    private let log: (String) -> Void
    private let reports: VideoReports
    private var queue: [DecodedFrame] = []
    private var generation = 0
    private var ended = false
    private var failure: VideoError?
    private var failureTold = false

    /// Starts a helper that decodes `source` with `settings`' program and memory limit;
    /// `log` gets the lines it writes.
    /// - Throws: `VideoError` when the file cannot be opened or the helper cannot start.
    public init(_ source: VideoSource, settings: DecoderClient.Settings, log: @escaping (String) -> Void) throws(VideoError) {
        var file: OwnedDescriptor?
        var uri: String?
        var arguments = ["--video"]
        switch source.location {
        case .file(let path):
            let opened = OwnedDescriptor(Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY))
            guard opened.isOpen else { throw VideoError(message: "\(path) cannot be opened: \(String(cString: strerror(errno)))", debug: "") }
            file = opened
        case .stream(let address):
            uri = address
            arguments.append("--network")
        }
        if source.audio == .on { arguments.append("--audio") }
        do {
            helper = try withExtendedLifetime(file) { () throws(SystemError) in
                try Helper(settings: settings, arguments: arguments, passing: file.map { [$0.rawValue] } ?? [])
            }
        } catch {
            throw VideoError(message: "the video decoder cannot start: \(error.message)", debug: "")
        }
        file?.close()
        link = Link(socket: helper.socket.rawValue)
        reports = VideoReports { [weak link] slot in link?.send(.release(slot: slot)) }
        self.log = log
        link.send(.open(uri: uri, width: source.width, height: source.height, letterbox: source.letterbox, audio: source.audio))
    }

    deinit {
        link.alive = false
        queue.removeAll()
        helper.stop()
        helper.drainOutput(log)
    }

    public func takeFrame(waiting wait: Double) -> DecodedFrame? {
        readReports()
        if queue.isEmpty, wait > 0 {
            let deadline = EventLoop.monotonicSeconds + wait
            while queue.isEmpty, failure == nil, !ended {
                let left = deadline - EventLoop.monotonicSeconds
                guard left > 0 else { break }
                var ready = pollfd(fd: helper.socket.rawValue, events: Int16(POLLIN), revents: 0)
                guard retryingOnInterrupt({ poll(&ready, 1, Int32(max(1, (left * 1000).rounded(.up)))) }) > 0 else { break }
                readReports()
            }
        }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    public var isDrained: Bool {
        readReports()
        return ended && queue.isEmpty
    }

    public func takeFailure() -> VideoError? {
        readReports()
        guard let failure, !failureTold else { return nil }
        failureTold = true
        return failure
    }

    public func seek(to position: Double) {
        guard failure == nil else { return }
        generation += 1
        queue.removeAll()
        ended = false
        link.send(.seek(position: position, generation: generation))
    }

    public func resize(width: Int, height: Int) {
        guard failure == nil else { return }
        link.send(.resize(width: min(width, VideoRing.maximumSide), height: min(height, VideoRing.maximumSide)))
    }

    public func setPlaying(_ on: Bool) {
        guard failure == nil else { return }
        link.send(.play(on))
    }

    /// Takes what the helper has sent, until there is nothing more or it failed.
    private func readReports() {
        helper.drainOutput(log)
        while failure == nil {
            let message: (bytes: [UInt8], descriptors: [OwnedDescriptor])?
            do { message = try DescriptorMessages.receive(on: helper.socket.rawValue, limit: VideoRing.messageLimit) } catch {
                if error.code == .wouldBlock { return }
                return stop("sent what cannot be read (\(error.message))")
            }
            guard let message else { return helperEnded() }
            switch reports.take(message, generation: generation, queued: queue.count) {
            case .none: break
            case .frame(let frame): queue.append(frame)
            case .stale(let slot): link.send(.release(slot: slot))
            case .duration(let seconds): duration = seconds
            case .end(let generation): if generation == self.generation { ended = true }
            case .failure(let error): failure = error
            case .violation(let what): return stop(what)
            }
        }
    }

    /// The helper broke the protocol: it is stopped, and the decoder fails with what it did.
    private func stop(_ what: String) {
        helper.process.signalGroup(SIGKILL)
        failure = VideoError(message: "the video decoder \(what); it was stopped", debug: "")
    }

    /// The helper hung up: the decoder fails with how its process ended.
    private func helperEnded() {
        var ended = pollfd(fd: helper.process.pidfd, events: Int16(POLLIN), revents: 0)
        _ = retryingOnInterrupt { poll(&ended, 1, 1000) }
        helper.drainOutput(log)
        let how: String
        switch helper.process.reap() {
        case .signaled(SIGSYS)?: how = "made a system call its filter forbids (SIGSYS) and was stopped"
        case .signaled(SIGKILL)?: how = "was killed (SIGKILL: out of memory, or by an operator)"
        case .signaled(let number)?: how = "crashed (\(Subprocess.signalName(number)))"
        case .exited(let status)?: how = "ended (exit status \(status))"
        case .unknown?, nil: how = "ended"
        }
        failure = VideoError(message: "the video decoder \(how)", debug: "", decoderEnded: true)
    }

    /// The socket, for the surfaces that release their slots when they go.
    final class Link {
        let socket: CInt
        var alive = true

        init(socket: CInt) { self.socket = socket }

        func send(_ request: VideoRequest) {
            guard alive else { return }
            // (a helper that no longer reads is found out when its socket closes or it stops sending)
            try? DescriptorMessages.send(Array(request.json.text.utf8), on: socket)
        }
    }
}

/// What a video helper reports, checked as the daemon reads it: the slots of shared memory
/// it hands over (memfds sealed against resizing, within `VideoRing.maximumBytes`) and the
/// frames in them (inside the slot, of a sane size, no more than the ring holds). Anything
/// else is a violation, and the helper is stopped.
public final class VideoReports {
    /// What one report comes to.
    public enum Outcome {
        case none
        /// A frame of the current seek, drawn from its slot, which is released when it goes.
        case frame(DecodedFrame)
        /// A frame of an earlier seek: its slot goes back at once.
        case stale(slot: Int)
        case duration(Double)
        case end(generation: Int)
        case failure(VideoError)
        /// The helper broke the protocol: what it did.
        case violation(String)
    }

    private var slots: [SharedMemory?] = Array(repeating: nil, count: VideoRing.slots)
    private let release: (Int) -> Void

    /// `release` gives a slot back to the helper once the surface drawn from it has gone.
    public init(release: @escaping (Int) -> Void) { self.release = release }

    /// Reads `message`, the frames of seek `generation` wanted and `queued` of them waiting.
    public func take(_ message: (bytes: [UInt8], descriptors: [OwnedDescriptor]), generation: Int, queued: Int) -> Outcome {
        guard let json = try? JSON(parsing: String(decoding: message.bytes, as: UTF8.self)), let report = VideoReport(json) else {
            return .violation("sent a malformed report")
        }
        if case .slot = report {} else if !message.descriptors.isEmpty { return .violation("sent descriptors it was not asked for") }
        switch report {
        case .slot(let slot, let bytes):
            guard message.descriptors.count == 1 else { return .violation("sent \(message.descriptors.count) descriptors with a slot") }
            do { slots[slot] = try SharedMemory(sizeSealed: message.descriptors[0], size: bytes) } catch {
                return .violation("handed over memory that cannot be used (\(error.message))")
            }
            return .none
        case .frame(let slot, let offset, let width, let height, let stride, let time, let frameGeneration, let yuv):
            let pixelBytes = yuv == nil ? 4 : 1
            guard let memory = slots[slot], offset <= memory.size, height * stride * pixelBytes <= memory.size - offset,
                yuv?.chroma.allSatisfy({ $0.offset <= memory.size && ((height + 1) / 2) * $0.stride <= memory.size - $0.offset }) ?? true
            else {
                return .violation("sent a frame outside the memory it handed over")
            }
            guard frameGeneration == generation else { return .stale(slot: slot) }
            guard queued < VideoRing.slots else { return .violation("sent more frames than it has slots") }
            let release = release
            let done = {
                withExtendedLifetime(memory) {}
                release(slot)
            }
            guard let yuv else {
                let pixels = (memory.bytes + offset).bindMemory(to: UInt32.self, capacity: height * stride)
                return .frame(DecodedFrame(surface: Surface(wrapping: pixels, width: width, height: height, stride: stride, release: done), time: time))
            }
            let base = UnsafePointer(memory.bytes.assumingMemoryBound(to: UInt8.self))
            let (u, v) = (yuv.chroma[0], yuv.chroma.count > 1 ? yuv.chroma[1] : nil)
            let frame = YUVFrame(
                width: width, height: height, layout: yuv.layout, matrix: yuv.matrix, fullRange: yuv.fullRange, luma: base + offset, lumaStride: stride,
                u: base + u.offset, uStride: u.stride, v: v.map { base + $0.offset }, vStride: v?.stride, release: done)
            return .frame(DecodedFrame(picture: .yuv(frame), time: time))
        case .duration(let seconds): return .duration(seconds)
        case .end(let generation): return .end(generation: generation)
        case .failure(let message, let debug): return .failure(VideoError(message: message, debug: debug))
        }
    }
}
