import CLinuxConsole
import FoundationEssentials
import Glibc
import SystemPackage
import VitrineRaster
import VitrineSystem

/// The layout of a Linux framebuffer, checked to be one vitrine can write: XRGB8888 (32
/// bits, red at bit 16, green at 8, blue at 0), RGB888 (24 bits, the same order) or
/// RGB565 (16 bits: red at 11, green at 5, blue at 0).
public struct FramebufferLayout: Sendable, Equatable {
    public var format: ScanoutFormat
    public var width: Int
    public var height: Int
    /// Bytes from one row to the next.
    public var pitch: Int
    /// Bytes from the mapping's start to the visible area's first pixel.
    public var offset: Int
    /// Bytes to map.
    public var length: Int
    /// Hz from the pixel clock, 60 when the driver does not say.
    public var refreshRate: Double

    /// Checks what FBIOGET_VSCREENINFO and FBIOGET_FSCREENINFO returned.
    public init(path: String, variable v: fb_var_screeninfo, fixed f: fb_fix_screeninfo) throws(DisplayError) {
        let channels = [v.red, v.green, v.blue].map { (Int($0.offset), Int($0.length)) }
        switch v.bits_per_pixel {
        case 32, 24:
            guard channels.elementsEqual([(16, 8), (8, 8), (0, 8)], by: ==) else {
                throw .unsupportedFormat(
                    path: path, detail: "\(v.bits_per_pixel)-bit with red at bit \(v.red.offset), green at \(v.green.offset), blue at \(v.blue.offset)")
            }
            format = v.bits_per_pixel == 32 ? .xrgb8888 : .rgb888
        case 16:
            guard channels.elementsEqual([(11, 5), (5, 6), (0, 5)], by: ==) else {
                throw .unsupportedFormat(
                    path: path,
                    detail:
                        "16-bit with red \(v.red.length) bits at \(v.red.offset), green \(v.green.length) at \(v.green.offset), blue \(v.blue.length) at \(v.blue.offset)"
                )
            }
            format = .rgb565
        default:
            throw .unsupportedDepth(path: path, bitsPerPixel: Int(v.bits_per_pixel))
        }
        let size = format.bytesPerPixel
        width = Int(v.xres)
        height = Int(v.yres)
        pitch = Int(f.line_length)
        offset = Int(v.yoffset) * pitch + Int(v.xoffset) * size
        length = Int(f.smem_len)
        guard width > 0, height > 0, pitch >= width * size, offset + (height - 1) * pitch + width * size <= length else {
            throw .unsupportedFormat(path: path, detail: "\(width)x\(height) with \(pitch) bytes per row in \(length) bytes of memory (inconsistent)")
        }
        let htotal = Double(v.xres + v.left_margin + v.right_margin + v.hsync_len)
        let vtotal = Double(v.yres + v.upper_margin + v.lower_margin + v.vsync_len)
        refreshRate = v.pixclock > 0 ? (1e12 / (Double(v.pixclock) * htotal * vtotal) * 100).rounded() / 100 : 60
        if !refreshRate.isFinite || refreshRate < 1 || refreshRate > 1000 { refreshRate = 60 }
    }
}

/// A Linux framebuffer device (/dev/fb0): the picture is rendered into a system-memory
/// surface and its damaged rows are copied (rotated if need be) straight into the mapped
/// framebuffer. There is no page flip, so a frame may tear; `frameDone` follows each
/// present at once, and the frame pacer keeps to the refresh rate.
public final class FBDevOutput: OutputBackend {
    public let name: String
    public let mode: OutputMode
    public var modes: [OutputMode] { [mode] }
    public var frameDone: (() -> Void)?
    public private(set) var presentedFrames = 0
    /// The frame last presented: copied in as it is presented (there is no flip).
    public private(set) var shownFrame: ShownFrame?

    private let path: String
    private let device: OwnedDescriptor?
    private let memory: UnsafeMutableRawPointer
    private let layout: FramebufferLayout
    private let unmap: Bool
    private let surface: Surface
    private let copier: ScanoutCopy
    private let vt: VirtualTerminal?
    private let log: @Sendable (String) -> Void
    private var rendered = false
    private var acquired = false
    private var active = true
    private var closed = false

    /// Opens and maps `path` (default /dev/fb0).
    public convenience init(path: String = "/dev/fb0", rotation: ScreenRotation = .none, useVT: Bool = true, log: @escaping @Sendable (String) -> Void)
        throws(DisplayError)
    {
        let device: OwnedDescriptor
        do {
            device = OwnedDescriptor(try FileDescriptor.open(path, .readWrite, options: [.closeOnExec]))
        } catch {
            let code = Errno(thrown: error)
            if code == .permissionDenied || code == .notPermitted { throw .permissionDenied(path: path, group: owningGroup(of: path)) }
            throw .noDevice(tried: [.init(path: path, reason: code.description)])
        }
        var variable = fb_var_screeninfo()
        var fixed = fb_fix_screeninfo()
        let layout: FramebufferLayout
        let address: UnsafeMutableRawPointer
        let fd = device.rawValue
        try systemCall("FBIOGET_VSCREENINFO (is it a framebuffer device?)", path) { vitrine_fb_get_vscreeninfo(fd, &variable) }
        try systemCall("FBIOGET_FSCREENINFO", path) { vitrine_fb_get_fscreeninfo(fd, &fixed) }
        layout = try FramebufferLayout(path: path, variable: variable, fixed: fixed)
        let mapped = mmap(nil, layout.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { throw .system(what: "mmap", path: path, errno: .last) }
        address = mapped
        self.init(
            path: path, device: device, memory: address, layout: layout, unmap: true, rotation: rotation,
            vt: useVT ? VirtualTerminal.current() : nil, log: log)
        log(
            "fbdev: \(path) \(layout.width)x\(layout.height) \(layout.format), \(layout.pitch) bytes per row, ~\(layout.refreshRate) Hz, rotation \(rotation), scene \(mode.width)x\(mode.height), VT \(vt?.path ?? "none")"
        )
    }

    /// An output writing into `memory` laid out as `layout`, holding `device` open until it
    /// closes; for tests, `device` nil and `unmap` false.
    init(
        path: String, device: OwnedDescriptor?, memory: UnsafeMutableRawPointer, layout: FramebufferLayout, unmap: Bool, rotation: ScreenRotation,
        vt: VirtualTerminal?,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.path = path
        self.device = device
        self.memory = memory
        self.layout = layout
        self.unmap = unmap
        self.log = log
        let logical = rotation.logicalSize(physicalWidth: layout.width, height: layout.height)
        mode = OutputMode(width: logical.width, height: logical.height, refreshRate: layout.refreshRate)
        surface = Surface(width: logical.width, height: logical.height)
        copier = ScanoutCopy(rotation: rotation, format: layout.format, maximumWidth: layout.width)
        name = "fbdev:\(path)"
        self.vt = vt
        if let vt {
            do { try vt.enterGraphicsMode() } catch { log("fbdev: \(vt.path) stays in text mode: \(error)") }
        }
    }

    deinit { close() }

    public func acquireBuffer() throws -> OutputBuffer {
        guard !closed else { throw OutputError("\(name): the output is closed") }
        acquired = true
        return OutputBuffer(surface: surface, age: rendered ? 1 : 0)
    }

    public func present(damage: [PixelRect]) throws {
        guard acquired else { throw OutputError("present without an acquired buffer") }
        acquired = false
        rendered = true
        if active {
            for rect in damage { copier.copy(rect, from: surface, to: memory + layout.offset, pitch: layout.pitch) }
        }
        presentedFrames += 1
        shownFrame = ShownFrame(number: presentedFrames, time: Double(EventLoop.monotonicNanoseconds()) / 1e9)
        frameDone?()
    }

    public var virtualTerminal: VirtualTerminal? { vt }

    public func attach(to loop: EventLoop) {
        let weak = WeakFBDev(self)
        do {
            try vt?.handleSwitches(on: loop, release: { weak.output?.active = false }, acquire: { weak.output?.redraw() })
        } catch {
            log("fbdev: VT switches are not handled (\(error))")
        }
    }

    /// Back on the VT: the console drew over the framebuffer, so all of it is copied.
    private func redraw() {
        active = true
        if rendered { copier.copy(surface.bounds, from: surface, to: memory + layout.offset, pitch: layout.pitch) }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        vt?.restore()
        if unmap { munmap(memory, layout.length) }
        device?.close()
        log("fbdev: \(path) given back")
    }
}

private struct WeakFBDev: @unchecked Sendable {
    weak var output: FBDevOutput?
    init(_ output: FBDevOutput) { self.output = output }
}
