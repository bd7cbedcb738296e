import VitrineRaster

/// Images for layers' `contents`, loaded from PNG files once and kept while in use.
///
/// A relative path is looked up in `directory`. An image that cannot be loaded is
/// remembered as failed (so a bad path costs one attempt, not one per frame) and its
/// error is kept in `failures` for the daemon to report.
public final class ImageStore {
    /// Where relative paths start.
    public var directory: String
    /// The most images kept; the least recently used go first.
    public var capacity: Int
    public private(set) var failures: [String: String] = [:]
    private var images: [String: Surface] = [:]
    private var lastUse: [String: Int] = [:]
    private var clock = 0

    public init(directory: String = ".", capacity: Int = 64) {
        self.directory = directory
        self.capacity = capacity
    }

    /// The image at `reference` (a PNG path), or nil when it cannot be loaded.
    public func image(_ reference: String) -> Surface? {
        clock += 1
        if let image = images[reference] {
            lastUse[reference] = clock
            return image
        }
        guard failures[reference] == nil else { return nil }
        let path = reference.hasPrefix("/") ? reference : directory + "/" + reference
        do {
            let image = try Surface(contentsOfPNG: path)
            if images.count >= capacity, let oldest = lastUse.min(by: { $0.value < $1.value })?.key {
                images[oldest] = nil
                lastUse[oldest] = nil
            }
            images[reference] = image
            lastUse[reference] = clock
            return image
        } catch {
            failures[reference] = "\(error)"
            return nil
        }
    }

    /// Forgets an image (and a failure), so that it is read again: the file changed.
    public func invalidate(_ reference: String) {
        images[reference] = nil
        lastUse[reference] = nil
        failures[reference] = nil
    }
}
