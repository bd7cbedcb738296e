import VitrineCore
import VitrineJSON
import VitrineProtocol
import VitrineRolling
import VitrineSystem

/// The scene's keeper: executes the commands that read and change it, each scene change
/// one atomic transaction at the current media time; follows `number.set` until it
/// settles; holds requests until their `at`; turns what the scene reports into events.
///
/// It is confined to the daemon's event loop. What belongs to others (clients, frames,
/// what watches layers) it says with `SceneNotice`s through `notify`, synchronously and
/// in order.
public final class SceneHost {
    /// What the configuration says of changes to the scene.
    public struct Settings: Sendable {
        /// The spring of a script's `{"type": "spring"}` where it leaves parameters out.
        public var spring: Spring

        /// Settings from their parts.
        public init(spring: Spring) { self.spring = spring }
    }

    /// The settings; a reload sets them.
    public var settings: Settings
    /// The scene.
    public let scene: Scene
    /// Media time.
    public let clock: MediaClock
    /// Where layers go that name no parent, and the tree `layer.tree` shows by default.
    public let root: String
    /// Which client committed each open transaction, for its completion event.
    var transactionOwners: [UInt64: Int] = [:]
    /// Open `number.set` transactions until they settle.
    var numbers = NumberTracking()
    /// Requests waiting for their `at`, in the order they are due.
    var scheduled: [ScheduledRequest] = []
    /// While a scheduled request is applied: its `at` in media time, which is `now` for it.
    private var applyTime: Double?
    /// The last animation key given to an animation added without one (journaled with the
    /// scene, so that a restored scene's keys stay unique).
    public var animationKeys = 0
    let notify: (SceneNotice) -> Void

    /// A host of `scene` on `clock`, whose default parent is `root`.
    public init(scene: Scene, clock: MediaClock, root: String, settings: Settings, notify: @escaping (SceneNotice) -> Void) {
        self.scene = scene
        self.clock = clock
        self.root = root
        self.settings = settings
        self.notify = notify
    }

    /// The current media time: a scheduled request's `at` while it is applied.
    public var now: Double { applyTime ?? clock.now }

    /// Runs `body` as if it were media time `time` now (a request held for its `at`).
    public func applying<T, E: Error>(at time: Double, _ body: () throws(E) -> T) throws(E) -> T {
        applyTime = time
        defer { applyTime = nil }
        return try body()
    }

    /// Whether `execute` runs `command`.
    public static func executes(_ command: Command) -> Bool {
        switch command {
        case .layerAdd, .layerRemove, .layerMove, .layerActions, .layerPause, .layerResume, .layerSpeed, .layerSet, .animationAdd, .animationRemove,
            .numberSet, .transaction, .layerGet, .layerTree, .animationList, .time:
            true
        default:
            false
        }
    }

    /// Runs a command that reads or changes the scene (`executes`) for client `client`
    /// and returns its result.
    public func execute(_ command: Command, from client: Int) throws(ProtocolError) -> JSON {
        switch command {
        case .layerAdd, .layerRemove, .layerMove, .layerActions, .layerPause, .layerResume, .layerSpeed:
            var builder = TransactionBuilder(host: self)
            var tx = Transaction(disableActions: true)
            let result = try builder.append(command, to: &tx)
            try commit(tx, owner: nil)
            return result
        case .layerSet, .animationAdd, .animationRemove, .numberSet:
            var builder = TransactionBuilder(host: self)
            var tx = Transaction()
            var result = try builder.append(command, to: &tx)
            let id = try commit(tx, owner: client)
            if case .numberSet(let layer, let change) = command { track(layer: layer, value: change.value, transaction: id) }
            if case .object(var o) = result { o["transaction"] = .number(Double(id)); result = .object(o) }
            return result
        case .transaction(let spec):
            return .object(["transaction": .number(Double(try commit(spec, owner: client)))])
        case .layerGet(let id, let keys, let presentation):
            return try layerDescription(id, keys: keys, presentation: presentation)
        case .layerTree(let rootID):
            return try tree(rootID ?? root)
        case .animationList(let layer):
            let infos = try core { () throws(CoreError) in try scene.animations(of: layer) }
            return .array(infos.map(Self.animationDescription))
        case .time(let layer, let convert):
            return try time(of: layer, convert: convert)
        default:
            throw ProtocolError(.internalError, "\(command.name) is not a command of the scene")
        }
    }

    /// Commits `tx` at `time` (default now); `owner` receives its completion event.
    @discardableResult
    public func commit(_ tx: Transaction, owner: Int?, at time: Double? = nil) throws(ProtocolError) -> UInt64 {
        let id = try core { () throws(CoreError) in try scene.commit(tx, at: time ?? now) }
        if let owner { transactionOwners[id] = owner }
        notify(.committed(addsLayers: tx.addsLayers, removesLayers: tx.removesLayers))
        return id
    }

    /// Commits a `transaction` command's commands as one transaction (the same builder,
    /// checks and limits as a client's), at media time `time` (default now); `owner`
    /// receives its completion event. Returns the transaction's id.
    @discardableResult
    public func commit(_ spec: TransactionSpec, owner: Int?, at time: Double? = nil) throws(ProtocolError) -> UInt64 {
        var builder = TransactionBuilder(host: self)
        var tx = try builder.transaction(spec)
        for command in spec.commands { _ = try builder.append(command, to: &tx) }
        return try commit(tx, owner: owner, at: time)
    }

    /// A client went: its transactions' completions and its held requests go with it.
    public func forget(client: Int) {
        scheduled.removeAll { $0.client == client }
        transactionOwners = transactionOwners.filter { $0.value != client }
    }

    /// A fresh key for an animation added without one.
    func nextAnimationKey() -> String {
        animationKeys += 1
        return "animation-\(animationKeys)"
    }
}

/// Runs a throwing model call and turns its error into the wire's.
@inline(__always)
public func core<T>(_ body: () throws(CoreError) -> T) throws(ProtocolError) -> T {
    do { return try body() } catch { throw ProtocolError(error) }
}
