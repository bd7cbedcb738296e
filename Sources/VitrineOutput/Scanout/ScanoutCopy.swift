import VitrineRaster

/// Copies damaged parts of the rendered picture into a scan-out buffer, turning them on
/// the way.
///
/// The destination is write-combined device memory on most hardware: it is only ever
/// written, row after row, never read. Reads from the source (system memory) may jump
/// around instead, which is why the rotated copies walk the destination's rows.
public struct ScanoutCopy {
    public let rotation: ScreenRotation

    public init(rotation: ScreenRotation) { self.rotation = rotation }

    /// Copies logical `rect` of `source` into `destination`, a physical XRGB8888 buffer
    /// whose rows are `pitch` bytes apart. `rect` is clipped to the source.
    public func copy(_ rect: PixelRect, from source: Surface, to destination: UnsafeMutableRawPointer, pitch: Int) {
        let r = rect.intersection(source.bounds)
        guard !r.isEmpty else { return }
        let w = source.width, h = source.height
        let src = source.pixels, stride = source.stride
        let target = rotation.physicalRect(of: r, logicalWidth: w, logicalHeight: h)
        for py in target.y..<target.maxY {
            let row = (destination + py * pitch).assumingMemoryBound(to: UInt32.self)
            switch rotation {
            case .none:
                (row + target.x).update(from: src + py * stride + target.x, count: target.width)
            case .quarter:
                // physical (px, py) shows logical (py, h - 1 - px)
                for px in target.x..<target.maxX { row[px] = src[(h - 1 - px) * stride + py] }
            case .half:
                let line = src + (h - 1 - py) * stride
                for px in target.x..<target.maxX { row[px] = line[w - 1 - px] }
            case .threeQuarters:
                // physical (px, py) shows logical (w - 1 - py, px)
                for px in target.x..<target.maxX { row[px] = src[px * stride + (w - 1 - py)] }
            }
        }
    }
}
