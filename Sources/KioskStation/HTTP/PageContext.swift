import Hummingbird
import NIOCore

/// The request context of kioskd's local pages: Hummingbird's basic one plus the client's address, so that the
/// box's own clients (its screen, scripts on it) are told apart from a tablet on the shop's network
/// (``ManagersOnly``).
public struct PageContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Whether the client runs on this box: a loopback address (IPv4's 127/8, `::1`, either mapped into IPv6).
    var isLocal: Bool {
        remoteAddress?.ipAddress.map { KioskConfig.isLoopback(host: $0) } ?? false
    }
}
