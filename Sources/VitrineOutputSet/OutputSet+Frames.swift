import VitrineCore
import VitrineOutput
import VitrineSystem

/// Frames: asked for when something changed, paced per output by its flips, rendered from
/// the scene's tree of each output's root.
extension OutputSet {
    /// Asks for a frame on every powered output: at once with a manual clock; in real
    /// time at each output's next frame slot once it has shown its previous frame
    /// (`FramePacer`).
    public func requestFrame() {
        switch clock.mode {
        case .manual:
            renderFrame()
        case .realtime:
            for head in heads where head.powered { head.pacer.request() }
        }
    }

    /// Asks for a frame `delay` seconds after `now` (media time), when content that changes
    /// by itself shows its next picture (a GIF plays while nothing else animates); one such
    /// request is pending at a time.
    public func requestFrame(after delay: Double, now: Double) {
        let due = now + delay
        if let pending = pictureFrameDue, pending <= due + 1e-4 { return }
        pictureFrameDue = due
        // A millisecond late, so that the frame is past the picture's frame boundary.
        schedule(delay + 0.001) { [weak self] in
            guard let self, pictureFrameDue == due else { return }
            pictureFrameDue = nil
            requestFrame()
        }
    }

    /// Asks for a frame once the real-time clock reaches media time `time` (a request
    /// scheduled for it is applied in that frame).
    public func requestFrame(at time: Double) {
        schedule(max(0, time - clock.now)) { [weak self] in
            guard let self else { return }
            if clock.now >= time { requestFrame() } else { requestFrame(at: time) }
        }
    }

    /// Renders a frame now on every powered output whose picture changed, after
    /// `OutputNotice.frameStarting` had the scene advanced; asks for the next frames while
    /// something animates. Returns whether a frame was presented.
    @discardableResult
    public func renderFrame() -> Bool {
        renderFrame(on: heads)
    }

    /// `renderFrame()` for some outputs: one output's pacer renders only its own.
    @discardableResult
    public func renderFrame(on targets: [OutputHead]) -> Bool {
        let started = EventLoop.monotonicNanoseconds()
        let time = clock.now
        notify(.frameStarting(time: time))
        renderer.animations.time = time
        var presented = false
        for head in targets where head.powered {
            presented = render(head, at: time) || presented
        }
        if presented { statistics.frameTimes.record(Double(EventLoop.monotonicNanoseconds() - started) / 1e9) }
        let animating = scene.isAnimating
        if clock.mode == .realtime {
            for head in targets where head.powered { head.dropped.pass(at: time, interval: head.pacer.interval, animating: animating) }
            if animating {
                requestFrame()
            } else if let delay = renderer.animations.nextChange {
                requestFrame(after: delay, now: time)
            }
        }
        notify(.frameEnded(time: time, animating: animating))
        return presented
    }

    /// Renders `head`'s root at `time` and presents it if anything changed.
    private func render(_ head: OutputHead, at time: Double) -> Bool {
        do {
            let tree = try scene.renderTree(root: head.root, at: time)
            // (the number this frame gets when it is presented)
            let frame = head.backend.presentedFrames + 1
            notify(.rendering(head, frame: frame))
            let report = try head.pipeline.render(tree)
            if report.presented {
                statistics.frames += 1
                head.framesRendered += 1
                if report.direct { head.framesDirect += 1 }
                statistics.pixels += report.repaintedPixels
            }
            notify(.rendered(head, frame: frame, presented: report.presented))
            presentationRendered(head, tree: tree, presented: report.presented)
            return report.presented
        } catch {
            logger.error("\(head.name): frame at \(time) s failed: \(error)")
            return false
        }
    }

    /// Everything on every output is drawn whole at the next frame (an image arrived or
    /// changed, the output's size changed).
    public func invalidate() {
        for head in heads { head.pipeline.invalidate() }
    }
}
