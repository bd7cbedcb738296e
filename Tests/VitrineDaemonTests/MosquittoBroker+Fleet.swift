import VitrineTestSupport

extension MosquittoBroker {
    /// A `[fleet]` section for a daemon of this broker.
    func fleetSection(device: String, groups: [String]) -> String {
        var text = "[fleet]\nenabled = true\nhost = \"\(tls == nil ? "127.0.0.1" : "localhost")\"\nport = \(port)\ndevice = \"\(device)\"\n"
        text += "groups = [" + groups.map { "\"\($0)\"" }.joined(separator: ", ") + "]\nreconnect_max_seconds = 1\n"
        if let tls { text += "ca_file = \"\(tls.ca)\"\ncert_file = \"\(tls.cert)\"\nkey_file = \"\(tls.key)\"\n" }
        return text
    }
}
