import VitrineCore
import VitrineOutput
import VitrineRender
import VitrineWayland

/// Direct scan-out for one output: each frame, whether the picture is nothing but a hosted
/// window's dma-buf over the whole screen (`ScanoutCandidate`); if so, the output flips to
/// the client's buffer instead of a composited frame. Nothing is looked at while no
/// surface layer shows a window.
public final class DirectScanout {
    private let output: DirectScanoutOutput
    private let surfaces: SurfaceRenderer
    private let renderer: Renderer

    public init(output: DirectScanoutOutput, surfaces: SurfaceRenderer, renderer: Renderer) {
        (self.output, self.surfaces, self.renderer) = (output, surfaces, renderer)
    }

    /// Shows `tree` directly when it qualifies; false when it is to be composited.
    /// `screen` is the output's rectangle in the tree's space.
    func show(_ tree: RenderTree, screen: Rect) -> Bool {
        guard surfaces.showsWindows else { return false }
        var found: DirectBuffer?
        let black = renderer.clearColor == .black
        guard
            ScanoutCandidate.find(
                in: tree, screen: screen, clearIsBlack: black,
                buffer: { [surfaces] node in
                    found = surfaces.directBuffer(for: node)
                    return found.map { ScanoutCandidate.Buffer(width: $0.width, height: $0.height, isOpaque: $0.isOpaque) }
                }) != nil, let buffer = found
        else { return false }
        var cache = buffer.attachment
        defer { buffer.attachment = cache }
        let scanout = ScanoutBuffer(
            descriptor: buffer.descriptor, width: buffer.width, height: buffer.height, stride: buffer.stride, offset: buffer.offset, hold: buffer.hold())
        return output.scanOut(scanout, cache: &cache)
    }
}
