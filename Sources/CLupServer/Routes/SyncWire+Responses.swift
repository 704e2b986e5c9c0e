import Hummingbird
import SyncWire

// The sync API's answers (SyncWire) as Hummingbird responses: JSON, through the server's encoder.
extension AppendedEvents: ResponseEncodable {}
extension EventPage: ResponseEncodable {}
extension KeyRingPage: ResponseEncodable {}
extension Enrolled: ResponseEncodable {}
extension PairingGrant: ResponseEncodable {}
extension Paired: ResponseEncodable {}
