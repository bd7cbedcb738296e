import VitrineProtocol

/// What bindings do besides their commands.
extension Coordinator {
    /// Lets the input router reset the scene and restart clients for `idle` and `active`
    /// bindings (`reset`, `client`) and play a binding's `playlist`; a failure is logged,
    /// as a binding's is.
    func takeBindingActions() {
        input.actions = { [unowned self] spec in
            if spec.resetsScene {
                do throws(ProtocolError) { _ = try resetScene() } catch {
                    logger.warning("binding on \(spec.trigger.rawValue): the scene cannot be reset: \(error.message)")
                }
            }
            if let name = spec.restartsClient { restartClient(name, for: "binding on \(spec.trigger.rawValue)") }
            if let playlist = spec.playlist {
                do throws(ProtocolError) { try signage.play(playlist, item: nil, output: nil, at: now) } catch {
                    logger.warning("binding '\(spec.id ?? "")' cannot play its playlist: \(error.message)")
                }
            }
        }
    }

    /// Stops the client `name` and starts it again (starts it when it is not running);
    /// `what` is what log lines say asked for it.
    func restartClient(_ name: String, for what: String) {
        guard let windows else { return logger.warning("\(what): no client '\(name)' can run here (no window host)") }
        windows.stopClient(name) { [unowned self, weak windows] result in
            if case .failure(let error) = result { return logger.warning("\(what): \(error.message)") }
            do throws(ProtocolError) { _ = try windows?.startClient(name, program: nil) } catch {
                logger.warning("\(what): client '\(name)' cannot start again: \(error.message)")
            }
            flush()
        }
    }
}
