import Hummingbird
import NIOCore
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
extension ShopperDesk.JourneyTold: ResponseEncodable {}
extension ShopperDesk.StoreSummary: ResponseEncodable {}
extension TicketWork.Challenge: ResponseEncodable {}
extension DayReport: ResponseEncodable {}
extension StoreOffice.Count: ResponseEncodable {}
extension StoreOffice.Calls: ResponseEncodable {}
extension Accounts.Session: ResponseEncodable {}

extension Response {
    /// A day's export (``Reports``) as a CSV file to save: the API's and the console's.
    static func csv(_ export: Reports.Export) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"clup-\(export.date)-events.csv\"",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(string: export.text))
        )
    }
}
