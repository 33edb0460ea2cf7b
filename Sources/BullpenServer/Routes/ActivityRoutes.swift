import BullpenAPI
import BullpenCore
import BullpenStore
import Foundation
import Vapor

/// The journal of a portfolio as activities: paged JSON, a CSV file, and realized totals.
struct ActivityRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let activities = routes.grouped("portfolios", ":id", "activities")
        activities.get(use: list)
        activities.get("summary", use: summary)
    }

    @Sendable func list(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        let periods = try Self.periods(req)
        let store = req.bullpen.store
        switch req.query[String.self, at: "format"] ?? "json" {
        case "json":
            let page = try await store.activities(of: id, owner: caller.user, periods: periods,
                                                  limit: try req.pageLimit(), cursor: req.pageCursor)
            return try jsonResponse(ActivityPage(activities: page.items.map(ActivityDTO.init), nextCursor: page.nextCursor))
        case "csv":
            // The CSV is the whole history: a page size is still checked, but does not page it.
            _ = try req.pageLimit()
            var csv = ActivityCSV()
            for entry in try await store.journal(of: id, owner: caller.user, periods: periods).reversed() {
                csv.append(ActivityDTO(entry))
            }
            return csvResponse(csv.text, filename: "activities-\(id).csv")
        case let other:
            throw APIError.validation("format must be json or csv, not '\(other)'.")
        }
    }

    /// Realized profits, losses and counts over the chosen periods, summed by the server.
    @Sendable func summary(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let journal = try await req.bullpen.store.journal(of: try req.portfolioID(), owner: caller.user,
                                                          periods: try Self.periods(req))
        return try jsonResponse(RealizedSummaryDTO(RealizedSummary(journal), period: req.query[String.self, at: "period"] ?? "current"))
    }

    static func periods(_ req: Request) throws -> BullpenStore.PeriodSelection {
        switch req.query[String.self, at: "period"] {
        case nil, "current": return .current
        case "all": return .all
        case let value?:
            // As the contract's pattern has it: digits only, no leading zero, at most nine.
            guard (1...9).contains(value.count), value.first != "0", value.allSatisfy({ ("0"..."9").contains($0) }), let number = Int(value) else {
                throw APIError.validation("period must be current, all or a period number.")
            }
            return .number(number)
        }
    }
}
