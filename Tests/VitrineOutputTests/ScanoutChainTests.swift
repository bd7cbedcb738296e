import Testing
@testable import VitrineOutput
import VitrineRaster

/// The way from the rendered picture to the scan-out buffers, with a fake KMS commit: what
/// is copied where, what is committed when, and that a buffer always ends up equal to the
/// picture it shows.
@Suite struct ScanoutChainTests {
    /// Records commits; modesets send an event like atomic ones, or not (legacy).
    final class FakeCommitter: KMSCommitter {
        let kind = "fake"
        let rotatesInHardware = false
        let bufferSize = (width: 8, height: 6)
        var modesetSendsEvent = true
        var commits: [String] = []
        func modeset(framebuffer: UInt32, userData: UnsafeMutableRawPointer?) throws(DisplayError) -> Bool {
            commits.append("modeset \(framebuffer)")
            return modesetSendsEvent
        }
        var flipDamage: [[PixelRect]] = []
        func flip(framebuffer: UInt32, damage: [PixelRect], userData: UnsafeMutableRawPointer?) throws(DisplayError) {
            commits.append("flip \(framebuffer)")
            flipDamage.append(damage)
        }
        func restore() { commits.append("restore") }
    }

    /// Two or three 8×6 buffers in memory (framebuffer ids 100, 101, …).
    final class Rig {
        let surface = Surface(width: 8, height: 6)
        let committer = FakeCommitter()
        let memory: [UnsafeMutableRawPointer]
        let chain: ScanoutChain
        var shown = 0
        var written: [(UInt32, [PixelRect])] = []

        init(buffers: Int = 2) {
            memory = (0..<buffers).map { _ in
                let m = UnsafeMutableRawPointer.allocate(byteCount: 8 * 6 * 4, alignment: 64)
                m.initializeMemory(as: UInt32.self, repeating: 0xDEAD_BEEF, count: 8 * 6)
                return m
            }
            chain = ScanoutChain(
                surface: surface, targets: memory.enumerated().map { ScanoutTarget(pixels: $1, pitch: 32, framebuffer: UInt32(100 + $0)) },
                copier: ScanoutCopy(rotation: .none), committer: committer)
            chain.shown = { [unowned self] in shown += 1 }
            chain.wrote = { [unowned self] in written.append(($0.framebuffer, $1)) }
        }

        deinit { memory.forEach { $0.deallocate() } }

        /// Paints `rect` with `colour` into the picture and presents it.
        func frame(_ rect: PixelRect, _ colour: UInt32) throws {
            surface.fill(rect, PremultipliedColor(unchecked: colour))
            try chain.frameRendered(damage: [rect])
        }

        /// Whether buffer `index` equals the picture.
        func bufferMatchesPicture(_ index: Int) -> Bool {
            let pixels = memory[index].assumingMemoryBound(to: UInt32.self)
            return (0..<6).allSatisfy { y in (0..<8).allSatisfy { x in pixels[y * 8 + x] == surface.pixels[y * surface.stride + x] } }
        }
    }

    @Test func firstFrameSetsTheModeWithTheWholePicture() throws {
        let rig = Rig()
        try rig.frame(PixelRect(x: 0, y: 0, width: 2, height: 2), 0xFF00_00FF)
        #expect(rig.committer.commits == ["modeset 100"])
        #expect(rig.written.first?.1 == [rig.surface.bounds])
        #expect(rig.bufferMatchesPicture(0))
        #expect(rig.chain.pending == 0)
    }

    /// While a flip is pending a new frame waits; the flip event shows it.
    @Test func oneCommitInFlight() throws {
        let rig = Rig()
        try rig.frame(rig.surface.bounds, 0xFF00_0000)
        try rig.frame(PixelRect(x: 1, y: 1, width: 2, height: 2), 0xFFFF_0000)
        try rig.frame(PixelRect(x: 5, y: 3, width: 1, height: 1), 0xFF00_FF00)
        #expect(rig.committer.commits == ["modeset 100"])
        rig.chain.flipCompleted(at: 7.5, sequence: 450)
        #expect(rig.committer.commits == ["modeset 100", "flip 101"])
        #expect(rig.shown == 1)
        #expect(rig.chain.shownFrame == ShownFrame(number: 1, time: 7.5, sequence: 450, byDisplay: true), "the modeset showed frame 1 in vblank 450")
        #expect(rig.bufferMatchesPicture(1))
        rig.chain.flipCompleted(at: 7.52, sequence: 451)
        #expect(rig.committer.commits.count == 2)
        #expect(rig.shown == 2)
        #expect(rig.chain.shownFrame == ShownFrame(number: 3, time: 7.52, sequence: 451, byDisplay: true), "the flip showed frames 2 and 3")
        #expect(rig.chain.front == 1 && rig.chain.pending == nil)
    }

    /// Each buffer gets the damage since it was last written, and only that: buffer 0,
    /// written for frame 1, gets frames 2 and 3's damage when it is reused for frame 3.
    @Test func buffersGetTheDamageTheyMissed() throws {
        let rig = Rig()
        let a = PixelRect(x: 0, y: 0, width: 3, height: 1), b = PixelRect(x: 4, y: 4, width: 2, height: 2)
        try rig.frame(rig.surface.bounds, 0xFF10_1010); rig.chain.flipCompleted()
        try rig.frame(a, 0xFF20_2020); rig.chain.flipCompleted()
        try rig.frame(b, 0xFF30_3030); rig.chain.flipCompleted()
        #expect(rig.written.map(\.0) == [100, 101, 100])
        #expect(rig.written[1].1 == [rig.surface.bounds])  // buffer 1 was never written
        #expect(rig.written[2].1 == [a, b])
        #expect(rig.committer.flipDamage == [[rig.surface.bounds], [a, b]])  // FB_DAMAGE_CLIPS
        #expect(rig.bufferMatchesPicture(0))
        try rig.frame(a, 0xFF40_4040); rig.chain.flipCompleted()
        #expect(rig.written[3].0 == 101 && rig.written[3].1 == [b, a])
        #expect(rig.bufferMatchesPicture(1))
    }

    @Test func tripleBuffering() throws {
        let rig = Rig(buffers: 3)
        for i in 0..<4 {
            try rig.frame(PixelRect(x: i, y: i, width: 1, height: 1), 0xFF00_0000 | UInt32(i + 1))
            rig.chain.flipCompleted()
        }
        #expect(rig.committer.commits == ["modeset 100", "flip 101", "flip 102", "flip 100"])
        #expect(rig.bufferMatchesPicture(0))
    }

    /// Legacy SetCrtc sends no event: the completion is run later, not inside the commit.
    @Test func legacyModesetCompletesLater() throws {
        let rig = Rig()
        rig.committer.modesetSendsEvent = false
        var later: [() -> Void] = []
        rig.chain.later = { later.append($0) }
        try rig.frame(rig.surface.bounds, 0xFF00_0000)
        #expect(rig.shown == 0 && later.count == 1)
        later[0]()
        #expect(rig.shown == 1 && rig.chain.pending == nil)
    }

    /// Away from the VT nothing is committed; back on it the mode is set again and the
    /// buffer rewritten whole.
    @Test func vtSwitch() throws {
        let rig = Rig()
        try rig.frame(rig.surface.bounds, 0xFF00_0000); rig.chain.flipCompleted()
        rig.chain.suspend()
        try rig.frame(PixelRect(x: 0, y: 0, width: 1, height: 1), 0xFFFF_FFFF)
        #expect(rig.committer.commits == ["modeset 100"])
        try rig.chain.resume()
        #expect(rig.committer.commits == ["modeset 100", "modeset 101"])
        #expect(rig.written.last?.1 == [rig.surface.bounds])
        #expect(rig.bufferMatchesPicture(1))
    }
}
