import Hummingbird
import NIOCore

/// The request context of clup-server's routes: Hummingbird's basic one plus the client's address (the
/// login throttle counts failures per address as well as per user name).
public struct ServerContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
