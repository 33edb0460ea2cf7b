import BullpenAPI
import BullpenCore
import BullpenMarketData
import Foundation
import Vapor

/// What a new replay can start from: the dates of the data and the scenarios it supports.
/// Public, like the research routes.
struct ReplayRoutes: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.grouped("replay").get("scenarios", use: scenarios)
    }

    @Sendable func scenarios(req: Request) async throws -> Response {
        let (range, available) = try await req.bullpen.replay().scenarios()
        return try jsonResponse(ScenarioList(
            firstDate: range?.lowerBound.description, lastDate: range?.upperBound.description,
            scenarios: available.map { item in
                ScenarioDTO(id: item.scenario.id, name: item.scenario.name, kind: item.scenario.kind.rawValue,
                            description: item.scenario.description, start: item.scenario.start.description,
                            end: item.scenario.end.description, symbols: item.symbols.map(\.rawValue))
            }))
    }
}
