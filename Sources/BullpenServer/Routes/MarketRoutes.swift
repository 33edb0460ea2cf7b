import BullpenAPI
import BullpenCore
import BullpenMarketData
import Foundation
import Vapor

/// The market's state: the data source, the clock and calendar, and today's movers. Public, no
/// token needed; movers answer as of `?asOf=YYYY-MM-DD` too (the view of a replay portfolio).
struct MarketRoutes: RouteCollection {
    static let demoLabel = "demo market, simulated prices"

    func boot(routes: any RoutesBuilder) throws {
        let market = routes.grouped("market")
        market.get("status", use: status)
        market.get("clock", use: clock)
        market.get("calendar", use: calendar)
        market.get("movers", use: movers)
    }

    @Sendable func status(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let status = await source.status()
        let session = await source.sessionDate(asOf: .live)
        return try jsonResponse(MarketStatusDTO(
            source: status.source, asOf: status.asOf, delayed: status.delayed, simulated: status.simulated,
            description: status.description, label: status.simulated ? Self.demoLabel : nil,
            sessionDate: session?.description))
    }

    @Sendable func clock(req: Request) async throws -> Response {
        let calendar = TradingCalendar()
        let now = req.bullpen.time.now()
        let nextOpen = calendar.nextOpen(after: now), nextClose = calendar.nextClose(after: now)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TradingCalendar.newYork
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssXXXXX"
        return try jsonResponse(MarketClockDTO(
            now: now, isOpen: calendar.isOpen(at: now), date: TradingCalendar.sessionDate(at: now).description,
            nextOpen: nextOpen, nextClose: nextClose, timezone: TradingCalendar.newYork.identifier,
            nextOpenLocal: formatter.string(from: nextOpen), nextCloseLocal: formatter.string(from: nextClose)))
    }

    @Sendable func calendar(req: Request) async throws -> Response {
        let today = TradingCalendar.sessionDate(at: req.bullpen.time.now())
        let start = try req.date("start") ?? today
        let end = try req.date("end") ?? start.adding(days: 30)
        guard start <= end else { throw APIError(.invalidDates, "start must not be after end.") }
        guard start.distance(to: end) <= 3_660 else {
            throw APIError(.invalidDates, "Ask for at most ten years at a time.")
        }
        let calendar = TradingCalendar()
        var days: [CalendarDayDTO] = [], closures: [ClosureDTO] = []
        for date in start...end {
            if let (open, close) = calendar.sessionBounds(on: date) {
                days.append(CalendarDayDTO(date: date.description, open: open, close: close, earlyClose: calendar.isEarlyClose(date)))
            } else if !date.isWeekend, let reason = calendar.closure(on: date) {
                closures.append(ClosureDTO(date: date.description, reason: reason))
            }
        }
        return try jsonResponse(MarketCalendarDTO(start: start.description, end: end.description, days: days, closures: closures))
    }

    @Sendable func movers(req: Request) async throws -> Response {
        let source = try req.bullpen.requireMarketData()
        let clock = try req.marketClock()
        let listName = req.query[String.self, at: "list"] ?? "gainers"
        guard let list = Research.MoverList(rawValue: listName) else {
            throw APIError(.invalidList, "list must be one of gainers, losers, most-active.")
        }
        let limit = try req.integer("limit", default: 10, range: 1...50)
        let className = req.query[String.self, at: "assetClass"] ?? AssetClass.usEquity.rawValue
        guard let assetClass = AssetClass(rawValue: className) else {
            throw APIError(.invalidList, "assetClass must be us_equity (the exchange's session) or crypto (the coins' UTC day).")
        }
        guard let session = await source.sessionDate(asOf: clock) else {
            var empty = MoversDTO(list: list.rawValue, session: nil, assets: [], simulated: source.isSimulated)
            empty.assetClass = assetClass.rawValue
            return try jsonResponse(empty)
        }
        let snapshots = try await Research.snapshots(source, asOf: clock).filter { $0.info.assetClass == assetClass }
        // A coin's day is the UTC day of its latest price (the day before a replay's date); a
        // stock's, the exchange's session.
        let day = assetClass == .crypto ? snapshots.compactMap { $0.quote?.asOf.map(SessionDate.init) }.max() : session
        let top = day.map { Research.movers(snapshots, list: list, session: $0, limit: limit) } ?? []
        var dto = MoversDTO(list: list.rawValue, session: day?.description, assets: top.map(AssetSummaryDTO.init),
                            simulated: source.isSimulated)
        dto.assetClass = assetClass.rawValue
        return try jsonResponse(dto)
    }
}
