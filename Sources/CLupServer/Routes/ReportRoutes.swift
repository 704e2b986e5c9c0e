import Foundation
import Hummingbird
import KioskCore

/// `GET /v1/stores/{store}/report` and `…/export`: a store's day for its manager (``Reports``), the figures as
/// JSON and every event as a CSV file. The console shows and links the same.
struct ReportRoutes {
    let reports: Reports
    let auth: Authenticator

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("v1/stores/:store/report") { request, context -> DayReport in
            let store = try context.parameters.require("store", as: UUID.self)
            try await auth.requireManager(request, from: context.remoteAddress, of: store)
            return try await reports.report(store, date: request.uri.queryParameters["date"].map(String.init))
        }
        router.get("v1/stores/:store/export") { request, context -> Response in
            let store = try context.parameters.require("store", as: UUID.self)
            try await auth.requireManager(request, from: context.remoteAddress, of: store)
            let date = request.uri.queryParameters["date"].map(String.init)
            return Response.csv(try await reports.export(store, date: date))
        }
    }
}
