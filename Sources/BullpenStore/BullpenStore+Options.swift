import BullpenCore
import FluentKit
import FluentSQL
import Foundation

/// Option exercises and expiries: changes of cash and positions, so through the ledger.
extension BullpenStore {
    /// Exercises contracts held by the portfolio (see ``OptionSettlement/exercise(_:contracts:on:spot:date:automatic:)``).
    public func exerciseOption(_ exercise: OptionExercise, in id: PortfolioID, owner: UserID) async throws -> (OptionSettlement, PortfolioRecord) {
        guard case .settled(let settlements, let record) = try await ledger.submit(.exercise(exercise, portfolio: id, owner: owner), store: self),
              let settlement = settlements.first
        else { throw StoreError.unavailable }
        return (settlement, record)
    }

    /// Settles the portfolio's contracts that expired by the close of `expiry.through`.
    public func expireOptions(_ expiry: OptionExpiry, in id: PortfolioID, owner: UserID) async throws -> [OptionSettlement] {
        guard case .settled(let settlements, _) = try await ledger.submit(.expire(expiry, portfolio: id, owner: owner), store: self)
        else { throw StoreError.unavailable }
        return settlements
    }

    /// A live portfolio holding option contracts, and the contracts it holds.
    public struct OptionHolder: Sendable {
        public var portfolio: PortfolioID
        public var owner: UserID
        public var contracts: [OptionContract]
    }

    /// The live portfolios that hold option contracts expiring on or before `date`.
    public func liveOptionHolders(expiringBy date: SessionDate) async throws -> [OptionHolder] {
        let rows = try await sql(db).raw("""
            SELECT "p"."id", "p"."user_id", "x"."symbol" FROM "positions" AS "x"
            JOIN "portfolios" AS "p" ON "p"."id" = "x"."portfolio_id"
            WHERE "p"."clock" = \(bind: PortfolioRow.encodeClock(.live)) AND LENGTH("x"."symbol") > \(bind: Symbol.maxStockLength)
            ORDER BY "p"."id"
            """).all()
        var holders: [OptionHolder] = []
        for row in rows {
            let id = PortfolioID(try row.decode(column: "id", as: UUID.self))
            guard let contract = Symbol(try row.decode(column: "symbol", as: String.self))?.option,
                  contract.expiration <= date else { continue }
            if holders.last?.portfolio == id {
                holders[holders.count - 1].contracts.append(contract)
            } else {
                holders.append(OptionHolder(portfolio: id, owner: UserID(try row.decode(column: "user_id", as: UUID.self)),
                                            contracts: [contract]))
            }
        }
        return holders
    }
}
