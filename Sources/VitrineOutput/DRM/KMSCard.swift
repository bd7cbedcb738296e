import CLibDRM
import FoundationEssentials
import Glibc

/// What a DRM card offers, read once at start: connectors, encoders, CRTCs. Plain values,
/// so that choosing a connector, a mode and a CRTC is a pure function a test can feed.
public struct KMSCard: Sendable {
    public var path: String
    public var crtcIDs: [UInt32]
    public var encoders: [KMSEncoder]
    public var connectors: [KMSConnector]

    public init(path: String, crtcIDs: [UInt32], encoders: [KMSEncoder], connectors: [KMSConnector]) {
        self.path = path
        self.crtcIDs = crtcIDs
        self.encoders = encoders
        self.connectors = connectors
    }
}

public struct KMSEncoder: Sendable {
    public var id: UInt32
    /// The CRTC it is driven by now; 0 for none.
    public var crtcID: UInt32
    /// Bit i: the card's CRTC i can drive it.
    public var possibleCRTCs: UInt32

    public init(id: UInt32, crtcID: UInt32, possibleCRTCs: UInt32) {
        self.id = id
        self.crtcID = crtcID
        self.possibleCRTCs = possibleCRTCs
    }
}

public struct KMSConnector: Sendable {
    public enum Status: String, Sendable { case connected, disconnected, unknown }

    public var id: UInt32
    /// The kernel's name, as in /sys/class/drm: "HDMI-A-1", "Virtual-1", "eDP-1".
    public var name: String
    public var status: Status
    /// As the screen lists them (preferred first on most screens).
    public var modes: [KMSMode]
    /// The encoder in use now; 0 for none.
    public var encoderID: UInt32
    public var encoderIDs: [UInt32]

    public init(id: UInt32, name: String, status: Status, modes: [KMSMode], encoderID: UInt32 = 0, encoderIDs: [UInt32] = []) {
        self.id = id
        self.name = name
        self.status = status
        self.modes = modes
        self.encoderID = encoderID
        self.encoderIDs = encoderIDs
    }
}

/// A display timing as the kernel describes it.
public struct KMSMode: Sendable {
    public var info: drmModeModeInfo

    public init(info: drmModeModeInfo) { self.info = info }

    /// A mode of the given size and rate (the timing fields other than those stay 0):
    /// for tests.
    public init(width: Int, height: Int, refreshRate: Int, preferred: Bool = false) {
        var info = drmModeModeInfo()
        info.hdisplay = UInt16(width)
        info.vdisplay = UInt16(height)
        info.vrefresh = UInt32(refreshRate)
        info.type = preferred ? UInt32(DRM_MODE_TYPE_PREFERRED) : 0
        self.info = info
    }

    public var width: Int { Int(info.hdisplay) }
    public var height: Int { Int(info.vdisplay) }
    public var isPreferred: Bool { info.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 }

    /// Hertz from the pixel clock where the timing is known (59.94 stays 59.94), else the
    /// kernel's rounded `vrefresh`.
    public var refreshRate: Double {
        guard info.clock > 0, info.htotal > 0, info.vtotal > 0 else { return Double(info.vrefresh) }
        var rate = Double(info.clock) * 1000 / (Double(info.htotal) * Double(info.vtotal))
        if info.flags & UInt32(DRM_MODE_FLAG_INTERLACE) != 0 { rate *= 2 }
        if info.flags & UInt32(DRM_MODE_FLAG_DBLSCAN) != 0 { rate /= 2 }
        if info.vscan > 1 { rate /= Double(info.vscan) }
        return (rate * 100).rounded() / 100
    }

    public var outputMode: OutputMode { OutputMode(width: width, height: height, refreshRate: refreshRate) }
}

/// Which mode to use: the screen's preferred one, or a size with an optional rate.
public enum ModeRequest: Sendable, Hashable, CustomStringConvertible {
    case preferred
    case size(width: Int, height: Int, refreshRate: Double?)

    public var description: String {
        switch self {
        case .preferred: "preferred"
        case .size(let w, let h, nil): "\(w)x\(h)"
        case .size(let w, let h, let r?): OutputMode(width: w, height: h, refreshRate: r).description
        }
    }
}
