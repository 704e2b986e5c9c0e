import Hummingbird
import SyncWire

// What the services answer, and the sync API's answers (SyncWire), as Hummingbird responses: JSON, through the
// server's encoder. The services know no HTTP; only the routes make responses.
extension AppendedEvents: ResponseEncodable {}
extension EventPage: ResponseEncodable {}
extension KeyRingPage: ResponseEncodable {}
extension Enrolled: ResponseEncodable {}
extension PairingGrant: ResponseEncodable {}
extension Paired: ResponseEncodable {}
extension StoreProfile: ResponseEncodable {}
extension StoreOffice.Registered: ResponseEncodable {}
extension ShopperDesk.Day: ResponseEncodable {}
extension ShopperDesk.Nearby: ResponseEncodable {}
extension ShopperDesk.StoreSummary: ResponseEncodable {}
extension TicketWork.Challenge: ResponseEncodable {}
extension DayReport: ResponseEncodable {}
