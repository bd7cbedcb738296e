import VitrineProtocol

/// What the scene host tells the daemon, synchronously on the loop, in the order it
/// happens. The owners of the daemon talk through such values; none holds a reference to
/// another.
public enum SceneNotice {
    /// An event of the scene for `owner` (the client that committed a transaction, for its
    /// completion; nil for none) and for the clients subscribed to it.
    case event(Event, owner: Int?)
    /// A transaction was committed: a frame is due after the reply; what watches layers
    /// (bindings, windows' assignments) learns whether layers came or went.
    case committed(addsLayers: Bool, removesLayers: Bool)
}
