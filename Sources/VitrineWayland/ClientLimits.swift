import CWaylandServer
import Glibc
import Logging

/// Bounds the objects each client holds at once: every `wl_resource` a client makes
/// (surfaces, buffers, regions, callbacks…) counts until it is destroyed, and `wl_shm_pool`s
/// (each one mapped in the daemon) count apart under a lower cap. A client past a cap is
/// sent `wl_display.error` `no_memory`, logged, and disconnected by libwayland once it has
/// handled what it is reading: never from inside a callback of libwayland's.
///
/// Owned by the `WaylandServer`, whose display it outlives.
final class ClientLimits {
    /// Objects a client may hold at once.
    var maximumObjects = 10_000
    /// `wl_shm_pool`s a client may hold at once.
    var maximumPools = 256
    let logger: Logger
    private let clientCreated: UnsafeMutablePointer<Hook>

    init(display: OpaquePointer, logger: Logger) {
        self.logger = logger
        clientCreated = Hook.make(owner: nil, notify: clientCreatedNotify)
        clientCreated.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        wl_display_add_client_created_listener(display, clientCreated.listener)
    }

    deinit {
        // The display, and the list the listener was in, went before.
        clientCreated.deinitialize(count: 1)
        clientCreated.deallocate()
    }

    /// A client's counts; alive while the client or one of its objects is.
    final class Tally {
        let client: OpaquePointer
        unowned let limits: ClientLimits
        var objects = 0
        var pools = 0
        private var refused = false
        let resourceCreated: UnsafeMutablePointer<Hook>
        private let clientDestroyed: UnsafeMutablePointer<Hook>

        init(client: OpaquePointer, limits: ClientLimits) {
            self.client = client
            self.limits = limits
            resourceCreated = Hook.make(owner: nil, notify: resourceCreatedNotify)
            clientDestroyed = Hook.make(owner: nil, notify: clientDestroyedNotify)
            let retained = Unmanaged.passRetained(self).toOpaque()
            resourceCreated.pointee.owner = retained
            clientDestroyed.pointee.owner = retained
            wl_client_add_resource_created_listener(client, resourceCreated.listener)
            wl_client_add_destroy_listener(client, clientDestroyed.listener)
        }

        deinit {
            for hook in [resourceCreated, clientDestroyed] {
                hook.deinitialize(count: 1)
                hook.deallocate()
            }
        }

        func created(_ resource: OpaquePointer) {
            let pool = strcmp(wl_resource_get_class(resource), "wl_shm_pool") == 0
            objects += 1
            if pool { pools += 1 }
            let hook = Hook.make(owner: Unmanaged.passRetained(self).toOpaque(), notify: resourceDestroyedNotify)
            hook.pointee.pool = pool
            wl_resource_add_destroy_listener(resource, hook.listener)
            guard !refused else { return }
            if pool && pools > limits.maximumPools {
                refuse("\(limits.maximumPools) wl_shm_pools (compositor.max_shm_pools_per_client)")
            } else if objects > limits.maximumObjects {
                refuse("\(limits.maximumObjects) objects (compositor.max_objects_per_client)")
            }
        }

        func destroyed(pool: Bool) {
            objects -= 1
            if pool { pools -= 1 }
        }

        /// The client's end as libwayland's: the error sets it to be destroyed once the
        /// requests it is reading are handled.
        private func refuse(_ what: String) {
            refused = true
            limits.logger.warning(
                "Wayland client \(WaylandServer.describe(client)) holds more than \(what): disconnected; it held \(Self.summary(of: client))")
            wl_client_post_no_memory(client)
        }

        /// "120 wl_buffer, 80 wl_region, 3 wl_surface": the most held kinds first.
        static func summary(of client: OpaquePointer) -> String {
            var counts: [String: Int] = [:]
            withUnsafeMutablePointer(to: &counts) { pointer in
                wl_client_for_each_resource(
                    client,
                    { resource, data in
                        let counts = data!.assumingMemoryBound(to: [String: Int].self)
                        counts.pointee[String(cString: wl_resource_get_class(resource)), default: 0] += 1
                        return WL_ITERATOR_CONTINUE
                    }, pointer)
            }
            return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(5).map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        }
    }

    /// A `wl_listener` with what its notification needs.
    struct Hook {
        var listener: wl_listener
        var owner: UnsafeMutableRawPointer?
        var pool = false

        static func make(owner: UnsafeMutableRawPointer?, notify: wl_notify_func_t) -> UnsafeMutablePointer<Hook> {
            let hook = UnsafeMutablePointer<Hook>.allocate(capacity: 1)
            hook.initialize(to: Hook(listener: wl_listener(link: wl_list(), notify: notify), owner: owner))
            return hook
        }

        /// The hook holding `listener`.
        static func of(_ listener: UnsafeMutablePointer<wl_listener>) -> UnsafeMutablePointer<Hook> {
            (UnsafeMutableRawPointer(listener) - MemoryLayout<Hook>.offset(of: \Hook.listener)!).assumingMemoryBound(to: Hook.self)
        }
    }
}

extension UnsafeMutablePointer<ClientLimits.Hook> {
    var listener: UnsafeMutablePointer<wl_listener> {
        (UnsafeMutableRawPointer(self) + MemoryLayout<ClientLimits.Hook>.offset(of: \ClientLimits.Hook.listener)!).assumingMemoryBound(to: wl_listener.self)
    }
}

private let clientCreatedNotify: wl_notify_func_t = { listener, data in
    guard let listener, let data, let owner = ClientLimits.Hook.of(listener).pointee.owner else { return }
    let limits = Unmanaged<ClientLimits>.fromOpaque(owner).takeUnretainedValue()
    _ = ClientLimits.Tally(client: OpaquePointer(data), limits: limits)
}

private let resourceCreatedNotify: wl_notify_func_t = { listener, data in
    guard let listener, let data, let owner = ClientLimits.Hook.of(listener).pointee.owner else { return }
    Unmanaged<ClientLimits.Tally>.fromOpaque(owner).takeUnretainedValue().created(OpaquePointer(data))
}

/// libwayland took the listener off the client's list: the client's hold on its tally ends.
private let clientDestroyedNotify: wl_notify_func_t = { listener, _ in
    guard let listener, let owner = ClientLimits.Hook.of(listener).pointee.owner else { return }
    let tally = Unmanaged<ClientLimits.Tally>.fromOpaque(owner)
    wl_list_remove(UnsafeMutableRawPointer(tally.takeUnretainedValue().resourceCreated.listener).assumingMemoryBound(to: wl_list.self))
    tally.release()
}

private let resourceDestroyedNotify: wl_notify_func_t = { listener, _ in
    guard let listener else { return }
    let hook = ClientLimits.Hook.of(listener)
    guard let owner = hook.pointee.owner else { return }
    let tally = Unmanaged<ClientLimits.Tally>.fromOpaque(owner)
    tally.takeUnretainedValue().destroyed(pool: hook.pointee.pool)
    tally.release()
    hook.deinitialize(count: 1)
    hook.deallocate()
}

extension WaylandServer {
    /// Objects (`wl_resource`s) a client may hold at once before it is disconnected.
    public var maximumObjectsPerClient: Int {
        get { limits.maximumObjects }
        set { limits.maximumObjects = newValue }
    }

    /// `wl_shm_pool`s a client may hold at once before it is disconnected (each one is
    /// mapped in the daemon).
    public var maximumPoolsPerClient: Int {
        get { limits.maximumPools }
        set { limits.maximumPools = newValue }
    }
}
