import VitrineCore
import VitrineRolling

/// One request line, decoded: its id and its command.
public struct Request: Sendable {
    /// The client's id for the request, echoed in the reply: a number or a string.
    public let id: JSON
    public let command: Command
    /// When to apply it: a wall-clock instant in Unix seconds (UTC); nil for now.
    public var at: Double? = nil
}

/// Where a layer goes among its siblings, as the wire says it.
public enum PlacementSpec: Sendable, Hashable {
    case top, bottom
    case index(Int)
    case above(String)
    case below(String)

    /// The model's placement.
    public var placement: Transaction.Placement {
        switch self {
        case .top: .top
        case .bottom: .bottom
        case .index(let i): .index(i)
        case .above(let id): .above(id)
        case .below(let id): .below(id)
        }
    }
}

/// Every command of the protocol, decoded once from its JSON object: names, enums,
/// numbers, springs and animations' timing are typed here. Property values, and an
/// animation's `from`, `to`, `by` and `values`, stay JSON until they are applied,
/// because their types depend on the layer they go to.
public enum Command: Sendable {
    case hello
    case ping
    /// Counters for monitoring: frames presented, layers, clients, whether anything animates.
    case stats
    /// `parent` is nil when not given (the output's root), `.some(nil)` for `null`: outside
    /// the tree, a mask to be.
    case layerAdd(id: String, kind: String, parent: String??, placement: PlacementSpec, properties: [(String, JSON)])
    case layerRemove(id: String)
    case layerMove(id: String, parent: String, placement: PlacementSpec)
    /// Sets properties; `animation` animates every change with that template (from what is
    /// shown to the new value; a basic or spring template without key path or values);
    /// `actions: false` disables implicit actions.
    case layerSet(id: String, properties: [(String, JSON)], animation: AnimationTemplate?, actions: Bool)
    case layerGet(id: String, keys: [String]?, presentation: Bool)
    case layerTree(root: String?)
    /// `actions` maps key paths to their action (nil: none); `actionsFrom` is nil when
    /// not given, `.some(nil)` when cleared.
    case layerActions(id: String, actions: [String: AnimationTemplate?]?, actionsFrom: String??, policy: ActionPolicy?, displayKeys: [String]?)
    case animationAdd(layer: String, key: String?, animation: AnimationTemplate)
    /// nil key: every animation of the layer.
    case animationRemove(layer: String, key: String?)
    case animationList(layer: String)
    /// Shows a new value on a rolling number, with per-call overrides of how it rolls.
    case numberSet(layer: String, change: RollRequest)
    case transaction(TransactionSpec)
    case layerPause(id: String)
    case layerResume(id: String)
    case layerSpeed(id: String, speed: Double)
    case time(layer: String?, convert: TimeConversion?)
    case clockSet(time: Double)
    case clockAdvance(seconds: Double)
    case screenshot(path: String?, output: String?, cursor: Bool)
    /// Every output: name, root, size, rate, whether it is powered.
    case outputList
    /// Blanks (`on` false: DPMS off, no frames drawn) or wakes an output.
    case outputPower(output: String, on: Bool)
    /// `layers`: the `layer.*` events these patterns bring come only for those layers and
    /// their sublayers.
    case subscribe(events: [String], layers: [String]?)
    case unsubscribe(events: [String])
    case configReload
    /// Removes every layer and animation and shows the configured initial scene again.
    case sceneReset
    /// Adds a reaction to a gesture on a layer, or to a key.
    case bindingAdd(BindingSpec)
    /// Removes one binding, or every binding of a layer.
    case bindingRemove(binding: String?, layer: String?)
    /// The bindings (of one layer).
    case bindingList(layer: String?)
    /// Feeds a synthetic event to the input pipeline.
    case inputInject(InjectedInput)
    /// The Wayland clients' toplevel windows: id, app id, title, size, the layer showing it.
    case surfaceList
    /// Shows a toplevel window in a `surface` layer (nil: in none).
    case surfaceAssign(surface: Int, layer: String?)
    /// Asks a toplevel window to close (`xdg_toplevel.close`): the one with id `surface`,
    /// or the one the surface layer `layer` shows (exactly one of them is given).
    case surfaceClose(surface: Int?, layer: String?)
    /// Starts the `[[clients]]` entry `name` (`program` nil), or `program` under that name.
    case clientStart(name: String, program: ClientProgram?)
    /// Stops a client: SIGTERM to its process group, SIGKILL after its grace.
    case clientStop(name: String)
    /// The clients: name, pid, state, restarts, last exit.
    case clientList
    /// Slides the screen keyboard in, with `layout` (a name of `[osk] layouts`) if given;
    /// `field` (output pixels) is a text field to keep in sight (`[osk] avoid`).
    case oskShow(layout: String?, field: Rect?)
    /// Slides the screen keyboard out.
    case oskHide
    /// Shows another layout of `[osk] layouts` (nil: the next one).
    case oskLayout(layout: String?)
    /// Sends a message on an output's HDMI-CEC bus; the reply carries its outcome and the
    /// answer when one is awaited.
    case cecSend(CECSendRequest)
    /// The play log's entries in a time range (docs/PLAYLOG.md).
    case playlogQuery(PlayLogQuery)
    /// Shows a scene in place of an output's, once its content is ready (docs/SIGNAGE.md).
    case sceneLoad(SceneLoad)
    /// Playlists and schedules (`playlist.*`, `schedule.*`).
    case signage(SignageCommand)

    /// The command's wire name.
    public var name: String {
        switch self {
        case .hello: "hello"
        case .ping: "ping"
        case .stats: "stats"
        case .layerAdd: "layer.add"
        case .layerRemove: "layer.remove"
        case .layerMove: "layer.move"
        case .layerSet: "layer.set"
        case .layerGet: "layer.get"
        case .layerTree: "layer.tree"
        case .layerActions: "layer.actions"
        case .animationAdd: "animation.add"
        case .animationRemove: "animation.remove"
        case .animationList: "animation.list"
        case .numberSet: "number.set"
        case .transaction: "transaction"
        case .layerPause: "layer.pause"
        case .layerResume: "layer.resume"
        case .layerSpeed: "layer.speed"
        case .time: "time"
        case .clockSet: "clock.set"
        case .clockAdvance: "clock.advance"
        case .screenshot: "screenshot"
        case .outputList: "output.list"
        case .outputPower: "output.power"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .configReload: "config.reload"
        case .sceneReset: "scene.reset"
        case .bindingAdd: "binding.add"
        case .bindingRemove: "binding.remove"
        case .bindingList: "binding.list"
        case .inputInject: "input.inject"
        case .surfaceList: "surface.list"
        case .surfaceAssign: "surface.assign"
        case .surfaceClose: "surface.close"
        case .clientStart: "client.start"
        case .clientStop: "client.stop"
        case .clientList: "client.list"
        case .oskShow: "osk.show"
        case .oskHide: "osk.hide"
        case .oskLayout: "osk.layout"
        case .cecSend: "cec.send"
        case .playlogQuery: "playlog.query"
        case .sceneLoad: "scene.load"
        case .signage(let command): command.name
        }
    }

    /// True for the commands a `transaction` may batch: those that change the scene.
    public var changesScene: Bool {
        switch self {
        case .layerAdd, .layerRemove, .layerMove, .layerSet, .layerActions, .animationAdd, .animationRemove,
            .layerPause, .layerResume, .layerSpeed, .transaction, .numberSet:
            true
        default:
            false
        }
    }
}

/// A batch of scene commands applied atomically (CATransaction).
public struct TransactionSpec: Sendable {
    public var duration: Double?
    public var timing: TimingFunction?
    public var disableActions: Bool?
    /// The batch explicitly asks for animation (layers with policy `explicitOnly` animate).
    public var animated: Bool?
    public var commands: [Command]
}

/// `time`'s optional conversion of a time between two layers' timelines.
public struct TimeConversion: Sendable {
    public var time: Double
    /// nil: media time.
    public var from: String?
    public var to: String?
}

extension Request {
    /// The largest nesting of transactions inside transactions.
    static let maximumNesting = 8

    /// True when a line (without its newline) is empty or holds only JSON whitespace —
    /// spaces, tabs, carriage returns: such a line is no request and gets no reply.
    public static func isBlank(_ line: some Collection<UInt8>) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    }

    /// Decodes one request line (without its newline). On failure returns the error and,
    /// when it could be read, the request's id so that the reply can carry it. A blank
    /// line (`isBlank`) is no request: callers skip it rather than decode it.
    public static func decode(_ line: some Collection<UInt8>) -> Result<Request, RequestError> {
        if let decoded = line.withContiguousStorageIfAvailable(decode(bytes:)) { return decoded }
        return Array(line).withUnsafeBufferPointer(decode(bytes:))
    }

    /// Decodes a request line from the bytes where they lie.
    static func decode(bytes: UnsafeBufferPointer<UInt8>) -> Result<Request, RequestError> {
        let json: JSON
        do { json = try JSON(parsing: bytes) } catch {
            // The parser takes only valid UTF-8; a line it refuses may be refused for that.
            guard isValidUTF8(bytes) else {
                return .failure(RequestError(id: nil, error: ProtocolError(.invalidUTF8, "the line is not valid UTF-8; send UTF-8 JSON, one object per line")))
            }
            return .failure(RequestError(id: nil, error: error))
        }
        guard let object = json.object else {
            return .failure(
                RequestError(
                    id: nil, error: ProtocolError(.notAnObject, "a request is a JSON object such as {\"id\": 1, \"cmd\": \"ping\"}, not \(json.kindName)")))
        }
        let id = object["id"]
        if let id, id != .null, id.number == nil, id.string == nil {
            return .failure(RequestError(id: nil, error: ProtocolError(.wrongType, "\"id\" is a number or a string, not \(id.kindName)")))
        }
        do throws(ProtocolError) {
            guard let id, id != .null else {
                throw ProtocolError(.missingField, "every request needs an \"id\" (a number or a string) to match its reply")
            }
            var fields = object
            var at: Double?
            if let wall = fields.removeValue(forKey: "at") { at = try WallTime.seconds(wall) }
            return .success(Request(id: id, command: try Command(object: fields, context: "request", depth: 0), at: at))
        } catch {
            return .failure(RequestError(id: id, error: error))
        }
    }
}

/// Why a request line was refused, with its id when known.
public struct RequestError: Error, Sendable {
    public let id: JSON?
    public let error: ProtocolError
}
