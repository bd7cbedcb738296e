import CWaylandServer

/// `wl_data_device_manager`: data sources and devices, so that clients which insist on a
/// clipboard (foot, GTK) start. The kiosk has no clipboard or drag and drop between
/// clients: a selection or a drag a client offers is cancelled at once, and no client is
/// offered another's data.
final class DataDeviceManagerObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_data_device_manager_interface(), version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch WlDataDeviceManagerRequest(rawValue: opcode) {
        case .create_data_source: _ = DataSourceObject(server: server, client: client, version: version, id: a[0].n)
        case .get_data_device: _ = DataDeviceObject(server: server, client: client, version: version, id: a[0].n)
        case nil: break
        }
    }
}

/// `wl_data_source`: what a client offers; it is never asked for its data.
final class DataSourceObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_data_source_interface(), version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if opcode == WlDataSourceRequest.destroy.rawValue { destroy() }
    }

    /// `wl_data_source.cancelled`: the source is no longer the selection or dragged.
    func cancel() { post(WlDataSourceEvent.cancelled.rawValue) }
}

/// `wl_data_device`: a client's selections and drags, each cancelled as it is made.
final class DataDeviceObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_data_device_interface(), version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch WlDataDeviceRequest(rawValue: opcode) {
        case .start_drag, .set_selection: ServerObject.of(a[0].resource, as: DataSourceObject.self)?.cancel()
        case .release: destroy()
        case nil: break
        }
    }
}
