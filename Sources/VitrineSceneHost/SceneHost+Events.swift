import VitrineCore
import VitrineProtocol

/// `number.set` until its roll settles: the transaction, the layer, the value, and whether
/// every column's animation so far ran to its end.
struct NumberTracking {
    /// Open `number.set` transactions.
    var sets: [UInt64: (layer: String, value: Double, finished: Bool)] = [:]
    /// The `number.set` transaction of each of its animations.
    var animations: [UInt64: UInt64] = [:]
}

/// The scene's events: a transaction's completion to the client that committed it, a
/// roll's settling as `number.completed`, and every event to its subscribers.
extension SceneHost {
    /// Advances the scene to `time` and says what happened as events.
    public func advance(to time: Double) {
        route(scene.advance(to: time))
    }

    /// Says `events` as the protocol's, each to its owner and subscribers.
    public func route(_ events: [SceneEvent]) {
        for event in events {
            let owner: Int?
            switch event {
            case .animationStopped(_, _, let id, let finished):
                if let tx = numbers.animations.removeValue(forKey: id), !finished { numbers.sets[tx]?.finished = false }
                owner = nil
            case .transactionCompleted(let tx):
                owner = transactionOwners[tx]
                if let number = numbers.sets.removeValue(forKey: tx) {
                    notify(.event(.numberCompleted(layer: number.layer, value: number.value, finished: number.finished, transaction: tx), owner: owner))
                }
                transactionOwners[tx] = nil
            default:
                owner = nil
            }
            notify(.event(Event(event), owner: owner))
        }
    }

    /// Remembers a `number.set` so that `number.completed` follows when it settles.
    func track(layer: String, value: Double, transaction: UInt64) {
        numbers.sets[transaction] = (layer, value, true)
        for info in (try? scene.animations(of: layer)) ?? [] where info.transaction == transaction {
            numbers.animations[info.id] = transaction
        }
    }
}
