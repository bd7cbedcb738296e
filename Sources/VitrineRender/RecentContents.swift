import VitrineCore

/// What a content renderer computed for the last few render-tree contents, in a ring.
///
/// A frame asks for the same node's result for its damage and for every damage rectangle
/// it draws, and the next frame asks for it again as the old node: keyed by the content
/// object (the same object, not merely equal values), a result is computed once a frame.
struct RecentContents<Result> {
    private var entries: [(content: RenderTree.Content, result: Result)?]
    /// The index of the entry written last.
    private var newest = 0

    init(capacity: Int = 4) {
        entries = Array(repeating: nil, count: capacity)
    }

    /// The newest result whose content `matches`.
    func newest(where matches: (RenderTree.Content) -> Bool) -> Result? {
        for age in entries.indices {
            if let entry = entries[(newest - age + entries.count) % entries.count], matches(entry.content) { return entry.result }
        }
        return nil
    }

    /// The result for this very content object, if it is among the recent ones.
    subscript(content: RenderTree.Content) -> Result? {
        newest { $0 === content }
    }

    /// Remembers `result` for `content`, forgetting the oldest entry.
    mutating func remember(_ result: Result, for content: RenderTree.Content) {
        newest = (newest + 1) % entries.count
        entries[newest] = (content, result)
    }
}
