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
    /// ``ReplayInfo`` as JSON; nil for live portfolios.
    var replay: String?
    var leagueId: UUID?
    var closedAt: Date?
    /// ``PortfolioVisibility``; set on every new row (optional only so that a query naming its
    /// columns need not name it).
    var visibility: String? = PortfolioVisibility.private.rawValue

    func record() throws -> PortfolioRecord {
        PortfolioRecord(
            id: PortfolioID(id), ownerID: UserID(userId), name: name,
            startingCash: Money(cents: startingCashCents), cash: Money(cents: cashCents), period: period,
            version: version, clock: try PortfolioRow.decodeClock(clock, row: id),
            replay: try replay.map { text in
                try StoreError.decoding("portfolios", id) { try JSONDecoder().decode(ReplayInfo.self, from: Data(text.utf8)) }
            },
            rules: try StoreError.decoding("portfolios", id) { try JSONDecoder().decode(PortfolioRules.self, from: Data(rules.utf8)) },
            createdAt: createdAt, updatedAt: updatedAt, leagueID: leagueId.map(LeagueID.init), closedAt: closedAt,
            visibility: visibility.flatMap(PortfolioVisibility.init(rawValue:)) ?? .private)
    }

    static func encodeClock(_ clock: PortfolioClock) -> String {
        switch clock {
        case .live: "live"
        case .replay(let date): "replay:\(Int64(date.timeIntervalSince1970))"
        }
    }

    static func decodeClock(_ text: String, row: UUID) throws -> PortfolioClock {
        if text == "live" { return .live }
        if text.hasPrefix("replay:"), let seconds = Int64(text.dropFirst("replay:".count)) {
            return .replay(Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        throw StoreError.corruptRow(table: "portfolios", id: row.uuidString.lowercased())
    }

    static func encodeRules(_ rules: PortfolioRules) throws -> String { try json(rules) }

    static func encodeReplay(_ replay: ReplayInfo?) throws -> String? { try replay.map(json) }

    /// The JSON text a column keeps: keys sorted, so equal values store equal text.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// A replay portfolio's equity at one session's close (`date` as `YYYY-MM-DD`).
struct EquitySnapshotRow: Codable, Sendable {
    var id: UUID
    var portfolioId: UUID
    var period: Int
    var date: String
    var cashCents: Int64
    var marketValueCents: Int64
    var equityCents: Int64

    /// How both batch writers write a snapshot whose day is stored already: the later one wins.
    static let upsert = #"ON CONFLICT ("portfolio_id", "period", "date") DO UPDATE SET "cash_cents" = "excluded"."cash_cents", "market_value_cents" = "excluded"."market_value_cents", "equity_cents" = "excluded"."equity_cents""#

    func snapshot() throws -> EquitySnapshot {
        EquitySnapshot(date: try StoreError.decoding("equity_snapshots", id) { SessionDate(iso: date) },
                       cash: Money(cents: cashCents), marketValue: Money(cents: marketValueCents))
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

    /// How both batch writers write a position that exists: its new quantity and cost.
    static let upsert = #"ON CONFLICT ("portfolio_id", "symbol") DO UPDATE SET "quantity" = "excluded"."quantity", "cost_basis_cents" = "excluded"."cost_basis_cents", "updated_at" = "excluded"."updated_at""#

    func position() throws -> Position {
        Position(symbol: try StoreError.decoding("positions", id) { Symbol(symbol) },
                 quantity: Quantity(units: quantity), costBasis: Money(cents: costBasisCents))
    }
}

struct OrderRow: Codable, Sendable {
    var id: UUID
    var portfolioId: UUID
    var period: Int
    var sequence: Int64?
    var clientOrderId: String?
    var symbol: String
    var side: String
    var type: String
    var quantity: Int64
    var status: String
    var filledQuantity: Int64
    var fillPriceTicks: Int64?
    var priceSource: String?
    var priceAsOf: Date?
    var marketOpen: Bool?
    var notionalCents: Int64
    var commissionCents: Int64
    var realizedPnlCents: Int64
    var cashDeltaCents: Int64
    var createdAt: Date
    var filledAt: Date?
    var timeInForce: String? = nil
    var limitPriceTicks: Int64? = nil
    var stopPriceTicks: Int64? = nil
    var trailTicks: Int64? = nil
    var trailBasisPoints: Int64? = nil
    var waterMarkTicks: Int64? = nil
    var triggered: Bool? = nil
    var placedOn: String? = nil
    var lastSession: String? = nil
    var expiresAt: Date? = nil
    var holdPriceTicks: Int64? = nil
    var replacesId: UUID? = nil
    var replacedById: UUID? = nil
    var updatedAt: Date? = nil
    var reason: String? = nil
    var fillNote: String? = nil

    /// What a batch writes for an order it changed (a working order filled, cancelled,
    /// replaced, expired, or its mark moved): every column that changes after the order is placed.
    static let upsert = #"ON CONFLICT ("id") DO UPDATE SET "status" = "excluded"."status", "quantity" = "excluded"."quantity", "limit_price_ticks" = "excluded"."limit_price_ticks", "stop_price_ticks" = "excluded"."stop_price_ticks", "trail_ticks" = "excluded"."trail_ticks", "hold_price_ticks" = "excluded"."hold_price_ticks", "filled_quantity" = "excluded"."filled_quantity", "fill_price_ticks" = "excluded"."fill_price_ticks", "price_source" = "excluded"."price_source", "price_as_of" = "excluded"."price_as_of", "market_open" = "excluded"."market_open", "notional_cents" = "excluded"."notional_cents", "commission_cents" = "excluded"."commission_cents", "realized_pnl_cents" = "excluded"."realized_pnl_cents", "cash_delta_cents" = "excluded"."cash_delta_cents", "filled_at" = "excluded"."filled_at", "water_mark_ticks" = "excluded"."water_mark_ticks", "triggered" = "excluded"."triggered", "replaced_by_id" = "excluded"."replaced_by_id", "updated_at" = "excluded"."updated_at", "reason" = "excluded"."reason", "fill_note" = "excluded"."fill_note""#

    func record() throws -> OrderRecord {
        func field<T>(_ value: T?) throws -> T { try StoreError.decoding("orders", id) { value } }
        var pricing: FillPricing?
        if let priceSource {
            pricing = FillPricing(source: try field(PriceSource(rawValue: priceSource)), asOf: try field(priceAsOf),
                                  marketOpen: try field(marketOpen))
        }
        return try OrderRecord(
            id: OrderID(id), portfolioID: PortfolioID(portfolioId), period: period, sequence: try field(sequence),
            clientOrderID: clientOrderId, symbol: try field(Symbol(symbol)), side: try field(OrderSide(rawValue: side)),
            type: try field(OrderType(rawValue: type)), quantity: Quantity(units: quantity),
            status: try field(OrderRecord.Status(rawValue: status)), filledQuantity: Quantity(units: filledQuantity),
            fillPrice: fillPriceTicks.map(Price.init(ticks:)), pricing: pricing, notional: Money(cents: notionalCents),
            commission: Money(cents: commissionCents), realizedPnL: Money(cents: realizedPnlCents),
            cashDelta: Money(cents: cashDeltaCents), createdAt: createdAt, filledAt: filledAt)
        .with(self)
    }
}

extension OrderRow {
    init(_ order: OrderRecord) {
        self.init(id: order.id.uuid, portfolioId: order.portfolioID.uuid, period: order.period, sequence: order.sequence,
                  clientOrderId: order.clientOrderID, symbol: order.symbol.rawValue, side: order.side.rawValue,
                  type: order.type.rawValue, quantity: order.quantity.units, status: order.status.rawValue,
                  filledQuantity: order.filledQuantity.units, fillPriceTicks: order.fillPrice?.ticks,
                  priceSource: order.pricing?.source.rawValue, priceAsOf: order.pricing?.asOf, marketOpen: order.pricing?.marketOpen,
                  notionalCents: order.notional.cents, commissionCents: order.commission.cents,
                  realizedPnlCents: order.realizedPnL.cents, cashDeltaCents: order.cashDelta.cents, createdAt: order.createdAt,
                  filledAt: order.filledAt, timeInForce: order.terms.timeInForce.rawValue, limitPriceTicks: order.terms.limit?.ticks,
                  stopPriceTicks: order.terms.stop?.ticks, waterMarkTicks: order.waterMark?.ticks, triggered: order.triggered,
                  placedOn: order.placedOn?.description, lastSession: order.lastSession?.description, expiresAt: order.expiresAt,
                  holdPriceTicks: order.holdPrice?.ticks, replacesId: order.replacesID?.uuid, replacedById: order.replacedByID?.uuid,
                  updatedAt: order.updatedAt, reason: order.reason, fillNote: order.fillNote)
        switch order.terms.trail {
        case .price(let amount)?: trailTicks = amount.ticks
        case .percent(let basisPoints)?: trailBasisPoints = basisPoints
        case nil: break
        }
    }
}

extension OrderRecord {
    /// The record with the working-order columns of `row` (absent on orders placed before them).
    fileprivate func with(_ row: OrderRow) throws -> OrderRecord {
        func field<T>(_ value: T?) throws -> T { try StoreError.decoding("orders", row.id) { value } }
        var order = self
        var trail: Trail?
        if let ticks = row.trailTicks { trail = .price(Price(ticks: ticks)) }
        if let basisPoints = row.trailBasisPoints { trail = .percent(basisPoints: basisPoints) }
        order.terms = OrderTerms(type: type, timeInForce: try row.timeInForce.map { try field(TimeInForce(rawValue: $0)) } ?? .day,
                                 limit: row.limitPriceTicks.map(Price.init(ticks:)), stop: row.stopPriceTicks.map(Price.init(ticks:)),
                                 trail: trail)
        order.waterMark = row.waterMarkTicks.map(Price.init(ticks:))
        order.triggered = row.triggered ?? false
        order.placedOn = try row.placedOn.map { try field(SessionDate(iso: $0)) }
        order.lastSession = try row.lastSession.map { try field(SessionDate(iso: $0)) }
        order.expiresAt = row.expiresAt
        order.holdPrice = row.holdPriceTicks.map(Price.init(ticks:))
        order.replacesID = row.replacesId.map(OrderID.init)
        order.replacedByID = row.replacedById.map(OrderID.init)
        order.updatedAt = row.updatedAt
        order.reason = row.reason
        order.fillNote = row.fillNote
        return order
    }
}

/// One change of an order's status.
struct OrderEventRow: Codable, Sendable {
    var id: UUID
    var orderId: UUID
    var portfolioId: UUID
    var status: String
    var at: Date
    var note: String?

    func event() throws -> OrderEvent {
        let stored = status
        return OrderEvent(status: try StoreError.decoding("order_events", id) { OrderStatus(rawValue: stored) }, at: at, note: note)
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
    var priceSource: String?
    var priceAsOf: Date?
    var marketOpen: Bool?
    var notionalCents: Int64
    var commissionCents: Int64
    var realizedPnlCents: Int64
    var createdAt: Date
    /// How a working order's fill was priced, in words.
    var note: String? = nil

    func fill() throws -> Fill {
        let stored = side, ticker = symbol
        let orderSide = try StoreError.decoding("fills", id) { OrderSide(rawValue: stored) }
        let notional = Money(cents: notionalCents), commission = Money(cents: commissionCents)
        return Fill(symbol: try StoreError.decoding("fills", id) { Symbol(ticker) }, side: orderSide, quantity: Quantity(units: quantity),
                    price: Price(ticks: priceTicks), notional: notional, commission: commission,
                    realizedPnL: Money(cents: realizedPnlCents),
                    cashDelta: orderSide == .buy ? -(notional + commission) : notional - commission)
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
    var priceAsOf: Date?
    var createdAt: Date
    var carriedBasisCents: Int64

    init(_ entry: JournalEntry) {
        id = entry.id.uuid
        portfolioId = entry.portfolioID.uuid
        period = entry.period
        sequence = entry.sequence
        kind = entry.kind.rawValue
        symbol = entry.symbol?.rawValue
        side = entry.side?.rawValue
        quantityDelta = entry.quantityDelta.units
        priceTicks = entry.price?.ticks
        cashDeltaCents = entry.cashDelta.cents
        commissionCents = entry.commission.cents
        realizedPnlCents = entry.realizedPnL.cents
        orderId = entry.orderID?.uuid
        fillId = entry.fillID?.uuid
        priceAsOf = entry.priceAsOf
        createdAt = entry.createdAt
        carriedBasisCents = entry.carriedBasis.cents
    }

    func entry() throws -> JournalEntry {
        func field<T>(_ value: T?) throws -> T { try StoreError.decoding("journal_entries", id) { value } }
        return JournalEntry(
            id: JournalEntryID(id), portfolioID: PortfolioID(portfolioId), period: period, sequence: sequence,
            kind: try field(JournalEntry.Kind(rawValue: kind)), symbol: try symbol.map { try field(Symbol($0)) },
            side: try side.map { try field(OrderSide(rawValue: $0)) }, quantityDelta: Quantity(units: quantityDelta),
            price: priceTicks.map(Price.init(ticks:)), cashDelta: Money(cents: cashDeltaCents),
            commission: Money(cents: commissionCents), realizedPnL: Money(cents: realizedPnlCents),
            orderID: orderId.map(OrderID.init), fillID: fillId.map(FillID.init), priceAsOf: priceAsOf,
            createdAt: createdAt, carriedBasis: Money(cents: carriedBasisCents))
    }
}

struct IdempotencyRow: Codable, Sendable {
    var id: UUID
    var userId: UUID
    var key: String
    var requestHash: String
    var statusCode: Int
    /// The stored response of records written before `orderId` was kept; empty since.
    var responseBody: String
    var createdAt: Date
    /// The order the request placed.
    var orderId: UUID?
}
