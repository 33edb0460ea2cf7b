import BullpenCore
@testable import BullpenStore
import Foundation
import Testing

@Suite("League store")
struct LeagueStoreTests {
    static func league(owner: UserID, code: String) -> LeagueRecord {
        let now = Date()
        return LeagueRecord(id: LeagueID(UUID()), ownerID: owner, name: "Class", description: "", visibility: .private,
                            code: code, startingCash: Money(dollars: 1_000), clock: .live,
                            rules: PortfolioRules(commission: Commission(perOrder: Money(cents: 100))), settings: LeagueSettings(),
                            defaultMetric: .return, startsAt: now.addingTimeInterval(-60), endsAt: nil, replayStart: nil,
                            replayDate: nil, nextAdvanceAt: nil, createdAt: now, updatedAt: now, version: 1)
    }

    /// Membership, folded figures and the two leaderboard queries, on both databases; closing a
    /// portfolio refuses its orders and keeps it.
    @Test(arguments: TestDatabases.kinds)
    func membersFiguresAndStandings(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let (owner, _) = try await store.makeUser()
            let (member, _) = try await store.makeUser()
            let (created, ownerPortfolio) = try await store.createLeague(Self.league(owner: owner.id, code: "ABCDEFGH")) { "ABCDEFGJ" }
            // A second league asking for the same code gets the next one drawn.
            let (other, _) = try await store.createLeague(Self.league(owner: member.id, code: "ABCDEFGH")) { "HGFEDCBA" }
            #expect(other.code == "HGFEDCBA" && created.code == "ABCDEFGH")
            let memberPortfolio = try await store.join(member.id, league: created)
            await #expect(throws: StoreError.alreadyMember) { _ = try await store.join(member.id, league: created) }
            #expect(memberPortfolio.leagueID == created.id && memberPortfolio.rules.tradingOpens == created.startsAt)

            let buy = PricedOrder.at(OrderRequest(symbol: Symbol("KO")!, side: .buy, quantity: 10), "50")
            _ = try await store.placeOrder(buy, in: memberPortfolio.id, owner: member.id, idempotency: nil)
            let days = ["2026-03-02", "2026-03-03", "2026-03-04"].map { SessionDate(iso: $0)! }
            let equities: [Int64] = [99_900, 101_000, 98_000]
            try await store.saveClosingEquity(of: memberPortfolio.id, period: 1, zip(days, equities).map {
                EquitySnapshot(date: $0, cash: Money(cents: $1), marketValue: .zero)
            })
            // The same sessions again are not folded twice.
            try await store.saveClosingEquity(of: memberPortfolio.id, period: 1, [EquitySnapshot(date: days[2], cash: Money(cents: 98_000), marketValue: .zero)])
            let stats = try #require(try await store.currentEquityStats(of: [memberPortfolio.id])[memberPortfolio.id])
            #expect(stats.sessions == 3 && stats.last == Money(cents: 98_000) && stats.previous == Money(cents: 101_000)
                    && stats.peak == Money(cents: 101_000) && stats.maxDrawdown == 297)

            let inputs = try await store.standingInputs(of: created.id)
            #expect(Set(inputs.map(\.portfolio)) == [ownerPortfolio.id, memberPortfolio.id])
            let mine = try #require(inputs.first { $0.portfolio == memberPortfolio.id })
            // 1,000.00 less 10 × 50.00 and the 1.00 commission.
            #expect(mine.cash == Money(cents: 49_900) && mine.holdings == [Symbol("KO")!: 10] && mine.trades == 1 && mine.stats == stats)

            try await store.removeMember(member.id, from: created.id, as: .left)
            #expect(try await store.standingInputs(of: created.id).map(\.portfolio) == [ownerPortfolio.id])
            await #expect(throws: StoreError.portfolioClosed) {
                _ = try await store.placeOrder(buy, in: memberPortfolio.id, owner: member.id, idempotency: nil)
            }
            #expect(try await store.portfolio(memberPortfolio.id, owner: member.id).closedAt != nil)
            let audit = try await store.auditSnapshot(of: memberPortfolio.id, owner: member.id, prices: [:])
            #expect(Invariants.check(audit).isEmpty && audit.journal.map(\.kind) == [.trade, .commission])
        }
    }
}
