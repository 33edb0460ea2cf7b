import BullpenCore
import Foundation

// Row shapes as the tables store them (snake_case columns via the coders in `BullpenStore`).
// They never leave this target: the store converts them to records.

struct UserRow: Codable, Sendable {
    var id: UUID
    var username: String
    var usernameKey: String
    var passwordHash: String
    var createdAt: Date

    var record: UserRecord {
        UserRecord(id: UserID(id), username: username, passwordHash: passwordHash, createdAt: createdAt)
    }
}

struct SessionRow: Codable, Sendable {
    var id: UUID
    var userId: UUID
    var createdAt: Date
    var lastUsedAt: Date
    var revokedAt: Date?
    var revokeReason: String?
}

struct RefreshTokenRow: Codable, Sendable {
    var id: UUID
    var sessionId: UUID
    var tokenHash: String
    var createdAt: Date
    var replacedAt: Date?
}

struct PortfolioRow: Codable, Sendable {
    var id: UUID
    var userId: UUID
    var name: String
    var nameKey: String
    var startingCashCents: Int64
    var cashCents: Int64
    var realizedPnlCents: Int64
    var period: Int
    var version: Int64
    var journalSequence: Int64
    var clock: String
    var rules: String
    var createdAt: Date
    var updatedAt: Date

    func record() throws -> PortfolioRecord {
        PortfolioRecord(
            id: PortfolioID(id), ownerID: UserID(userId), name: name,
            startingCash: Money(cents: startingCashCents), cash: Money(cents: cashCents), period: period,
            clock: PortfolioRow.decodeClock(clock),
            rules: try JSONDecoder().decode(PortfolioRules.self, from: Data(rules.utf8)),
            createdAt: createdAt, updatedAt: updatedAt)
    }

    static func encodeClock(_ clock: PortfolioClock) -> String {
        switch clock {
        case .live: "live"
        case .replay(let date): "replay:\(Int64(date.timeIntervalSince1970))"
        }
    }

    static func decodeClock(_ text: String) -> PortfolioClock {
        if text.hasPrefix("replay:"), let seconds = Int64(text.dropFirst("replay:".count)) {
            return .replay(Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        return .live
    }

    static func encodeRules(_ rules: PortfolioRules) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(rules), as: UTF8.self)
    }
}

struct PeriodRow: Codable, Sendable {
    var id: UUID
    var portfolioId: UUID
    var period: Int
    var startingCashCents: Int64
    var endingCashCents: Int64
    var endingEquityCents: Int64
    var realizedPnlCents: Int64
    var startedAt: Date
    var endedAt: Date

    var record: PeriodRecord {
        PeriodRecord(period: period, startingCash: Money(cents: startingCashCents),
                     endingCash: Money(cents: endingCashCents), endingEquity: Money(cents: endingEquityCents),
                     realizedPnL: Money(cents: realizedPnlCents), startedAt: startedAt, endedAt: endedAt)
    }
}

struct PositionRow: Codable, Sendable {
    var id: UUID
    var portfolioId: UUID
    var symbol: String
    var quantity: Int64
    var costBasisCents: Int64
    var updatedAt: Date

    var position: Position? {
        Symbol(symbol).map { Position(symbol: $0, quantity: quantity, costBasis: Money(cents: costBasisCents)) }
    }
}

struct OrderRow: Codable, Sendable {
    var id: UUID
    var portfolioId: UUID
    var period: Int
    var clientOrderId: String?
    var symbol: String
    var side: String
    var type: String
    var quantity: Int64
    var status: String
    var filledQuantity: Int64
    var fillPriceTicks: Int64?
    var notionalCents: Int64
    var commissionCents: Int64
    var realizedPnlCents: Int64
    var cashDeltaCents: Int64
    var createdAt: Date
    var filledAt: Date?

    var record: OrderRecord {
        OrderRecord(
            id: OrderID(id), portfolioID: PortfolioID(portfolioId), period: period, clientOrderID: clientOrderId,
            symbol: Symbol(symbol)!, side: OrderSide(rawValue: side) ?? .buy, type: OrderType(rawValue: type) ?? .market,
            quantity: quantity, status: OrderRecord.Status(rawValue: status) ?? .filled, filledQuantity: filledQuantity,
            fillPrice: fillPriceTicks.map(Price.init(ticks:)), notional: Money(cents: notionalCents),
            commission: Money(cents: commissionCents), realizedPnL: Money(cents: realizedPnlCents),
            cashDelta: Money(cents: cashDeltaCents), createdAt: createdAt, filledAt: filledAt)
    }
}

struct FillRow: Codable, Sendable {
    var id: UUID
    var orderId: UUID
    var portfolioId: UUID
    var period: Int
    var symbol: String
    var side: String
    var quantity: Int64
    var priceTicks: Int64
    var notionalCents: Int64
    var commissionCents: Int64
    var realizedPnlCents: Int64
    var createdAt: Date

    var fill: Fill {
        let side = OrderSide(rawValue: side) ?? .buy
        let notional = Money(cents: notionalCents), commission = Money(cents: commissionCents)
        return Fill(symbol: Symbol(symbol)!, side: side, quantity: quantity, price: Price(ticks: priceTicks),
                    notional: notional, commission: commission, realizedPnL: Money(cents: realizedPnlCents),
                    cashDelta: side == .buy ? -(notional + commission) : notional - commission)
    }
}

struct JournalRow: Codable, Sendable {
    var id: UUID
    var portfolioId: UUID
    var period: Int
    var sequence: Int64
    var kind: String
    var symbol: String?
    var side: String?
    var quantityDelta: Int64
    var priceTicks: Int64?
    var cashDeltaCents: Int64
    var commissionCents: Int64
    var realizedPnlCents: Int64
    var orderId: UUID?
    var fillId: UUID?
    var createdAt: Date

    init(_ entry: JournalEntry) {
        id = entry.id.uuid
        portfolioId = entry.portfolioID.uuid
        period = entry.period
        sequence = entry.sequence
        kind = entry.kind.rawValue
        symbol = entry.symbol?.rawValue
        side = entry.side?.rawValue
        quantityDelta = entry.quantityDelta
        priceTicks = entry.price?.ticks
        cashDeltaCents = entry.cashDelta.cents
        commissionCents = entry.commission.cents
        realizedPnlCents = entry.realizedPnL.cents
        orderId = entry.orderID?.uuid
        fillId = entry.fillID?.uuid
        createdAt = entry.createdAt
    }

    var entry: JournalEntry {
        JournalEntry(
            id: JournalEntryID(id), portfolioID: PortfolioID(portfolioId), period: period, sequence: sequence,
            kind: JournalEntry.Kind(rawValue: kind) ?? .trade, symbol: symbol.flatMap(Symbol.init),
            side: side.flatMap(OrderSide.init(rawValue:)), quantityDelta: quantityDelta,
            price: priceTicks.map(Price.init(ticks:)), cashDelta: Money(cents: cashDeltaCents),
            commission: Money(cents: commissionCents), realizedPnL: Money(cents: realizedPnlCents),
            orderID: orderId.map(OrderID.init), fillID: fillId.map(FillID.init), createdAt: createdAt)
    }
}

struct IdempotencyRow: Codable, Sendable {
    var id: UUID
    var userId: UUID
    var key: String
    var requestHash: String
    var statusCode: Int
    var responseBody: String
    var createdAt: Date
}
