import VitrineSceneHost

/// What the scene host says, taken on the loop: its events go to their owners and
/// subscribers, its commits ask for a frame after the reply and keep bindings and windows'
/// assignments to layers that exist.
extension Coordinator {
    func take(_ notice: SceneNotice) {
        switch notice {
        case .event(let event, let owner):
            subscribers.send(event, owner: owner)
        case .committed(let addsLayers, let removesLayers):
            if !input.bindings.isEmpty, removesLayers { input.pruneBindings() }
            identification?.committed(addsLayers: addsLayers, removesLayers: removesLayers)
            windows?.layersChanged(added: addsLayers, removed: removesLayers)
            afterReply.frame = true
        }
    }
}
