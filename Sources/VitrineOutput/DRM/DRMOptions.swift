/// What the DRM backend is asked to drive.
public struct DRMOptions: Sendable {
    /// The card, e.g. "/dev/dri/card1"; nil tries `/dev/dri/card*` in order and takes the
    /// first with a connected screen.
    public var device: String?
    /// The connector, e.g. "HDMI-A-1": the one `DRMCard.openAll` puts first (the primary
    /// screen), which must be connected; nil: no preference.
    public var connector: String?
    /// The mode of heads given no `DRMHeadSettings` of their own.
    public var mode: ModeRequest = .preferred
    /// The rotation of heads given no `DRMHeadSettings` of their own.
    public var rotation: ScreenRotation = .none
    /// Scan-out buffers, 2 or 3.
    public var buffers = 2
    public var atomic: AtomicPolicy = .auto
    /// Put the VT in graphics mode and handle VT switches (when started on a VT).
    public var useVT = true

    public init(
        device: String? = nil, connector: String? = nil, mode: ModeRequest = .preferred, rotation: ScreenRotation = .none, buffers: Int = 2,
        atomic: AtomicPolicy = .auto, useVT: Bool = true
    ) {
        self.device = device
        self.connector = connector
        self.mode = mode
        self.rotation = rotation
        self.buffers = buffers
        self.atomic = atomic
        self.useVT = useVT
    }
}

/// Which KMS interface commits frames.
public enum AtomicPolicy: String, Sendable, CaseIterable {
    /// Atomic when the driver offers DRM_CLIENT_CAP_ATOMIC, else legacy.
    case auto
    /// Atomic or fail.
    case on
    /// Legacy drmModeSetCrtc / drmModePageFlip even where atomic exists.
    case off

    /// `VITRINE_DRM_ATOMIC` from the environment (auto when unset); nil for a value that
    /// is none of auto, on, off.
    public static func fromEnvironment(_ environment: [String: String]) -> AtomicPolicy? {
        guard let text = environment["VITRINE_DRM_ATOMIC"], !text.isEmpty else { return .auto }
        return AtomicPolicy(rawValue: text.lowercased())
    }
}
