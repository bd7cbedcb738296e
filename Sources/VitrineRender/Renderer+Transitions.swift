import VitrineCore
import VitrineRaster

/// The old rendering of a layer that runs a transition: its subtree as it was drawn before
/// the change, drawn once into a surface placed on the screen.
struct OutgoingSnapshot {
    let surface: Surface
    /// Where the surface's top-left pixel was on screen.
    let x: Int, y: Int
    /// The last `Renderer.renders` that drew it.
    var lastUsed: UInt64
}

/// Transitions (CATransition): a layer's old rendering leaves as its new one arrives.
/// `fade` dissolves one into the other pixel by pixel (offscreen); `moveIn`, `push` and
/// `reveal` move them by whole pixels along the layer's width or height, as
/// `Transition.offsets(at:)` says.
extension Renderer {
    /// Draws node `i`, which runs `frame`, and its descendants.
    func drawTransition(_ pass: Pass, _ i: Int, _ frame: TransitionFrame, on surface: Surface, offset: AffineTransform, clip: Clip, opacity: Double) {
        let node = pass.tree.nodes[i]
        let old = outgoing(frame)
        let travel = node.travel(of: frame.transition), shares = frame.transition.offsets(at: frame.progress)
        func shift(_ share: Double) -> (x: Int, y: Int) { (Int((travel.x * share).rounded()), Int((travel.y * share).rounded())) }
        let oldShift = shift(shares.old), newShift = shift(shares.new)
        func drawNew(on target: Surface, offset: AffineTransform, clip: Clip) {
            // A layer that hid itself shows only its old rendering leaving.
            guard !node.values.bool(.hidden) else { return }
            let moved = Pass(
                tree: pass.tree, reach: pass.reach, contents: pass.contents, area: pass.area.offsetBy(dx: Double(-newShift.x), dy: Double(-newShift.y)),
                planes: pass.planes)
            let by = AffineTransform(translationX: Double(newShift.x), y: Double(newShift.y))
            drawShown(moved, i, on: target, offset: by.concatenating(offset), clip: clip, opacity: opacity)
        }
        func drawOld() {
            guard let old else { return }
            surface.composite(
                old.surface, x: old.x + oldShift.x + Int(offset.tx.rounded()), y: old.y + oldShift.y + Int(offset.ty.rounded()), opacity: opacity, clip: clip)
        }
        guard frame.transition.style == .fade else {
            if shares.oldOnTop {
                drawNew(on: surface, offset: offset, clip: clip)
                drawOld()
            } else {
                drawOld()
                drawNew(on: surface, offset: offset, clip: clip)
            }
            return
        }
        let bounds = PixelRect(covering: pass.reach[i].intersection(pass.area).offsetBy(dx: offset.tx, dy: offset.ty)).intersection(clip.rect)
        guard !bounds.isEmpty else { return }
        // The new rendering drawn apart at full strength, then mixed with the old one: a
        // dissolve, whatever either holds.
        surface.drawGroup(bounds: bounds, opacity: 1, clip: clip) { group, toGroup in
            let inner = clip.translated(dx: Int(toGroup.tx), dy: Int(toGroup.ty))
            drawNew(on: group, offset: offset.concatenating(toGroup), clip: inner)
            let oldSurface = old?.surface ?? Surface(width: 1, height: 1)
            let at = (x: (old?.x ?? 0) + Int((offset.tx + toGroup.tx).rounded()), y: (old?.y ?? 0) + Int((offset.ty + toGroup.ty).rounded()))
            group.mix(with: oldSurface, x: at.x, y: at.y, fraction: frame.progress, otherOpacity: opacity)
        }
    }

    /// The old rendering of `frame`'s layer, drawn the first time it is asked for; nil when
    /// the layer was not drawn before the change.
    private func outgoing(_ frame: TransitionFrame) -> OutgoingSnapshot? {
        if outgoingSnapshots[frame.id] != nil {
            outgoingSnapshots[frame.id]!.lastUsed = renders
            return outgoingSnapshots[frame.id]
        }
        guard let tree = frame.outgoing, !tree.nodes.isEmpty else { return nil }
        var reach: [Rect] = []
        let planes = tree.subtreeBounds(into: &reach)
        let box = PixelRect(covering: reach[0]).intersection(PixelRect(covering: tree.screen))
        guard !box.isEmpty else { return nil }
        let surface = Surface(width: box.width, height: box.height)
        let pass = Pass(tree: tree, reach: reach, contents: tree.nodes.map { contentRenderers[$0.kind] }, area: box.rect, planes: planes)
        drawShown(pass, 0, on: surface, offset: AffineTransform(translationX: Double(-box.x), y: Double(-box.y)), clip: Clip(rect: surface.bounds), opacity: 1)
        let snapshot = OutgoingSnapshot(surface: surface, x: box.x, y: box.y, lastUsed: renders)
        outgoingSnapshots[frame.id] = snapshot
        return snapshot
    }

    /// Drops the old renderings that the last few renders (of every output) did not draw:
    /// their transitions are over.
    func forgetEndedTransitions() {
        outgoingSnapshots = outgoingSnapshots.filter { renders - $0.value.lastUsed <= 8 }
    }
}
