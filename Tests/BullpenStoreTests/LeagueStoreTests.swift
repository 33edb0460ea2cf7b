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

    /// Leaderboards are answered from memory and follow every change of their portfolios, made
    /// by this instance or by another one on the same database: joining, trading, closing
    /// figures, leaving; on the global board opting in and out, renaming, deleting.
    @Test(arguments: TestDatabases.kinds)
    func boardsFollowEveryChangeFromAnyInstance(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, openAnother in
            let other = try openAnother()
            let (owner, _) = try await store.makeUser()
            let (member, _) = try await other.makeUser()
            let (league, ownerPortfolio) = try await store.createLeague(Self.league(owner: owner.id, code: "KMNPQRST")) { "KMNPQRSU" }
            func board(_ reader: BullpenStore = store) async throws -> [PortfolioID: StandingInput] {
                Dictionary(uniqueKeysWithValues: try await reader.standingInputs(of: league.id).map { ($0.portfolio, $0) })
            }
            #expect(try await board().keys.sorted { $0.uuid < $1.uuid } == [ownerPortfolio.id])

            let joined = try await other.join(member.id, league: league)
            #expect(Set(try await board().keys) == [ownerPortfolio.id, joined.id])
            try await other.trade(.buy, 4, "KO", at: "50", in: joined.id, owner: member.id)
            var mine = try #require(try await board()[joined.id])
            #expect(mine.cash == Money(cents: 79_900) && mine.holdings == [Symbol("KO")!: 4] && mine.trades == 1)
            // Unchanged, and the other instance's own board agrees.
            #expect(try await board()[joined.id]?.cash == mine.cash)
            #expect(try await board(other)[joined.id]?.holdings == mine.holdings)

            try await store.trade(.sell, 1, "KO", at: "60", in: joined.id, owner: member.id)
            mine = try #require(try await board(other)[joined.id])
            #expect(mine.cash == Money(cents: 85_800) && mine.holdings == [Symbol("KO")!: 3] && mine.trades == 2)

            let day = SessionDate(iso: "2026-03-02")!
            try await other.saveClosingEquity(of: joined.id, period: 1, [EquitySnapshot(date: day, cash: Money(cents: 85_800),
                                                                                         marketValue: Money(cents: 18_000))])
            #expect(try await board()[joined.id]?.stats.last == Money(cents: 103_800))
            #expect(try await board()[ownerPortfolio.id]?.stats.sessions == 0)

            try await other.removeMember(member.id, from: league.id, as: .kicked)
            #expect(Array(try await board().keys) == [ownerPortfolio.id])

            // The global board: live portfolios outside leagues whose owners opted in.
            let (player, main) = try await store.makeUser()
            func global(_ from: SessionDate? = nil) async throws -> (inputs: [PortfolioID: StandingInput], windows: [PortfolioID: [EquitySnapshot]]) {
                let read = try await store.publicStandingInputs(windowsFrom: from)
                return (Dictionary(uniqueKeysWithValues: read.inputs.map { ($0.portfolio, $0) }), read.windows)
            }
            #expect(try await global().inputs.isEmpty)
            try await other.setPublicLeaderboard(player.id, true)
            #expect(Array(try await global().inputs.keys) == [main.id])
            #expect(try await global(day).windows[main.id] == [])
            let spare = try await other.createPortfolio(owner: player.id, name: "Spare", startingCash: Money(dollars: 500))
            try await other.trade(.buy, 2, "KO", at: "50", in: main.id, owner: player.id)
            _ = try await other.renamePortfolio(main.id, owner: player.id, to: "Growth")
            let close = EquitySnapshot(date: day, cash: Money(dollars: 99_900), marketValue: Money(dollars: 100))
            try await other.saveClosingEquity(of: main.id, period: 1, [close])
            // A read without the closes first: the next read with them still has the new close.
            #expect(try await global().inputs.count == 2)
            var read = try await global(day)
            #expect(Set(read.inputs.keys) == [main.id, spare.id])
            #expect(read.inputs[main.id]?.portfolioName == "Growth" && read.inputs[main.id]?.holdings == [Symbol("KO")!: 2])
            #expect(read.windows[main.id] == [close] && read.windows[spare.id] == [])
            try await other.deletePortfolio(spare.id, owner: player.id)
            read = try await global(day)
            #expect(Array(read.inputs.keys) == [main.id] && read.windows[spare.id] == nil)
            try await other.setPublicLeaderboard(player.id, false)
            #expect(try await global().inputs.isEmpty)
            try await store.setPublicLeaderboard(player.id, true)
            #expect(Array(try await global().inputs.keys) == [main.id])
            try await other.deleteUser(player.id)
            #expect(try await global().inputs.isEmpty)
        }
    }
}
