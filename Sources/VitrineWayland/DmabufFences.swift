import CWaylandServer
import Glibc
import VitrineSystem

/// Implicit sync of dma-buf clients: a surface's commits held, in order, until the
/// dma-bufs they show are written.
///
/// A GPU client commits a buffer while its GPU may still be drawing into it: the buffer's
/// write fences, which the kernel keeps with the dma-buf, signal when it is done, and a
/// dma-buf's descriptor polls readable (`POLLIN`) once they have. A commit that shows a
/// dma-buf (its own or a synchronized subsurface's, taken with it) that does not poll
/// readable yet is held whole — buffer, damage, frame callbacks, presentation feedback,
/// the subsurfaces' states — and the surface keeps showing what it showed; the buffers'
/// descriptors (duplicates: the client may destroy its `wl_buffer` meanwhile) are watched
/// on the daemon's event loop, and the commit is applied, on the loop, once all are
/// readable. Later commits of the surface wait behind it, in order, applied one after
/// another as their buffers are written.
///
/// At most `capacity` commits wait: one more is merged into the last (as a synchronized
/// subsurface's cache merges commits: the newer buffer replaces the older, which is
/// released to the client at once since it will not be shown; damage and callbacks add
/// up). A held commit whose `wl_buffer` the client destroys is applied without that
/// buffer (the surface keeps its picture); a surface destroyed, or a client gone, drops
/// what it held, and the watches with it. `wl_shm` commits never come here while no
/// dma-buf exists, and otherwise only when an earlier commit of the surface is held.
final class HeldCommits {
    /// Commits that wait at most, per surface.
    static let capacity = 2

    private unowned let surface: SurfaceObject
    private var states: [SurfaceObject.State] = []
    /// The first commit's unwritten buffers, until each is readable or destroyed.
    private var awaited: [AwaitedBuffer] = []
    /// The loop's turn that applies what is ready, once scheduled.
    private var ticket: UInt64?

    init(surface: SurfaceObject) { self.surface = surface }

    /// Whether a commit waits.
    var isHolding: Bool { !states.isEmpty }

    /// Whether a waiting commit attaches a buffer.
    var attachesBuffer: Bool { states.contains { $0.attached?.resource != nil } }

    /// Holds `state` behind the commits that wait (merged into the last when `capacity`
    /// wait already).
    func hold(_ state: SurfaceObject.State) {
        guard states.count >= Self.capacity, var last = states.popLast() else {
            states.append(state)
            if states.count == 1 { advance() }
            return
        }
        let replaced = last.attached
        last.take(state)
        last.children = Self.merged(last.children, state.children)
        last.capDamage()
        states.append(last)
        if let (resource, id) = replaced, let resource, resource != last.attached?.resource { releaseUnshown(resource, id: id) }
    }

    /// Drops what waits: the surface is going.
    func drop() {
        for item in awaited { item.cancel() }
        awaited.removeAll()
        if let ticket { surface.server.loop.cancel(ticket) }
        ticket = nil
        for state in states { state.discardFeedback() }
        states.removeAll()
    }

    /// Applies the commits at the front whose buffers are written; watches the first one's
    /// that are not.
    private func advance() {
        let server = surface.server
        var applied = false
        while let first = states.first {
            awaited = first.unwrittenBuffers(of: surface.client, server: server).compactMap { resource, image in
                AwaitedBuffer(resource: resource, image: image, loop: server.loop) { [unowned self] done, destroyed in finished(done, destroyed: destroyed) }
            }
            guard awaited.isEmpty else { break }
            states.removeFirst()
            surface.applyHeld(first)
            applied = true
        }
        if applied { server.flush() }
    }

    /// One awaited buffer is written, or its `wl_buffer` was destroyed (then the commit
    /// goes on without it); the rest is done on the loop's next turn (not inside
    /// libwayland's destruction of a resource).
    private func finished(_ done: AwaitedBuffer, destroyed: Bool) {
        awaited.removeAll { $0 === done }
        if destroyed, !states.isEmpty { states[0].forget(done.resource) }
        guard awaited.isEmpty, ticket == nil else { return }
        ticket = surface.server.loop.schedule(after: 0) { [weak self] in
            self?.ticket = nil
            self?.advance()
        }
    }

    /// Whether a waiting commit attaches `resource`.
    func attaches(_ resource: OpaquePointer) -> Bool { states.contains { $0.attached?.resource == resource } }

    /// Tells the client it may reuse `resource`, a buffer merged away before it was shown,
    /// unless the surface shows it or a waiting commit attaches it.
    private func releaseUnshown(_ resource: OpaquePointer, id: UInt32) { surface.releaseUnshown(resource, id: id) }

    /// `newer`'s subsurface states merged over `older`'s.
    private static func merged(_ older: [SurfaceObject.ChildState]?, _ newer: [SurfaceObject.ChildState]?) -> [SurfaceObject.ChildState]? {
        guard var result = older else { return newer }
        for entry in newer ?? [] {
            guard let index = result.firstIndex(where: { $0.surface === entry.surface }) else {
                result.append(entry)
                continue
            }
            let replaced = result[index].state.attached
            result[index].state.take(entry.state)
            if let (resource, id) = replaced, let resource, resource != result[index].state.attached?.resource {
                entry.surface?.releaseUnshown(resource, id: id)
            }
            result[index].state.children = merged(result[index].state.children, entry.state.children)
            result[index].state.capDamage()
        }
        return result
    }
}

/// A dma-buf a held commit waits for: a duplicate of its descriptor watched for reading on
/// the loop, and its `wl_buffer` watched for destruction; `finish` is called once, with
/// whether the buffer was destroyed.
private final class AwaitedBuffer {
    let resource: OpaquePointer
    private let fd: OwnedDescriptor
    private unowned let loop: EventLoop
    private var watch: UnsafeMutablePointer<vitrine_watch>?
    private var finish: ((AwaitedBuffer, Bool) -> Void)?

    /// nil when the descriptor cannot be duplicated or watched: the commit does not wait for it.
    init?(resource: OpaquePointer, image: DmabufImage, loop: EventLoop, finish: @escaping (AwaitedBuffer, Bool) -> Void) {
        guard let fd = image.duplicateDescriptor() else { return nil }
        (self.resource, self.fd, self.loop) = (resource, fd, loop)
        do { try loop.watch(fd.rawValue, for: .readable) { [unowned self] _ in end(destroyed: false) } } catch { return nil }
        self.finish = finish
        watch = vitrine_watch_resource(resource, Unmanaged.passUnretained(self).toOpaque(), awaitedBufferGone)
    }

    deinit { cancel() }

    fileprivate func end(destroyed: Bool) {
        let finish = finish
        cancel()
        finish?(self, destroyed)
    }

    /// Stops both watches (before the descriptor closes).
    func cancel() {
        guard finish != nil else { return }
        finish = nil
        loop.unwatch(fd.rawValue)
        if let watch { vitrine_unwatch(watch) }
        watch = nil
    }
}

private let awaitedBufferGone: @convention(c) (UnsafeMutableRawPointer?) -> Void = { owner in
    guard let owner else { return }
    Unmanaged<AwaitedBuffer>.fromOpaque(owner).takeUnretainedValue().end(destroyed: true)
}

extension SurfaceObject.State {
    /// The dma-bufs this state and the subsurfaces' states it took attach, still alive,
    /// whose writers are not done.
    func unwrittenBuffers(of client: OpaquePointer, server: WaylandServer) -> [(OpaquePointer, DmabufImage)] {
        var found: [(OpaquePointer, DmabufImage)] = []
        if let (resource, id) = attached, let resource, let image = server.dmabufImages[resource], wl_client_get_object(client, id) == resource,
            !image.isWritten
        {
            found.append((resource, image))
        }
        for child in children ?? [] { found += child.state.unwrittenBuffers(of: client, server: server) }
        return found
    }

    /// Takes `resource`, destroyed, out of what this state and its subsurfaces' attach:
    /// they keep what they show.
    fileprivate mutating func forget(_ resource: OpaquePointer) {
        if attached?.resource == resource { attached = nil }
        guard var taken = children else { return }
        for index in taken.indices { taken[index].state.forget(resource) }
        children = taken
    }

    /// Damage of merged commits made everything past 64 rectangles.
    fileprivate mutating func capDamage() {
        if surfaceDamage.count > 64 { surfaceDamage = [SurfaceObject.everything] }
        if bufferDamage.count > 64 { bufferDamage = [SurfaceObject.everything] }
    }

    /// Tells the feedback of a commit dropped that it will not be shown.
    fileprivate func discardFeedback() {
        for item in feedback { item.discard() }
        for child in children ?? [] { child.state.discardFeedback() }
    }
}
