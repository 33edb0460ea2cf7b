import BullpenCore
import BullpenTestSupport
@testable import BullpenStore
import Foundation
import Testing

/// Achievements, notifications, alerts, pushes, streaks and top-ups in the store, on SQLite and on
/// PostgreSQL (the statements differ in what each database allows: `ON CONFLICT … RETURNING`,
/// `FOR UPDATE`, sums cast to bigint).
@Suite("Notification store")
struct NotificationStoreTests {
    @Test(arguments: TestDatabases.kinds)
    func grantsNotificationsAlertsAndDevices(kind: DatabaseKind) async throws {
        let clock = FixedTimeSource(Date(timeIntervalSince1970: 1_790_000_000.25))
        try await TestDatabases.withStore(kind, time: clock) { store, openAnother in
            let (alice, main) = try await store.makeUser()
            let (bob, _) = try await store.makeUser()

            // An achievement is granted once, whichever instance grants it, with its notification.
            let other = try openAnother()
            let first = try #require(Achievement.named("first-trade"))
            async let one = store.grant([first], to: alice.id)
            async let two = other.grant([first], to: alice.id)
            let (a, b) = try await (one, two)
            #expect(a.grants.count + b.grants.count == 1 && a.notifications.count + b.notifications.count == 1)
            #expect(try await store.grant([first], to: alice.id).grants.isEmpty)
            #expect(try await store.achievements(of: alice.id).map(\.achievement) == ["first-trade"])

            // Notifications made at one time are paged exactly, newest first; reads are the owner's.
            try await store.notify((0..<5).map { n in
                NotificationRecord(id: UUID(), user: alice.id, kind: .follower, title: "n\(n)", body: "", link: nil, createdAt: clock.now())
            })
            var seen: [UUID] = [], after: UUID?
            repeat {
                let page = try await store.notifications(of: alice.id, after: after, limit: 2)
                seen += page.map(\.id)
                after = page.count == 2 ? page.last?.id : nil
            } while after != nil
            let all = try await store.notifications(of: alice.id, after: nil, limit: 50)
            #expect(seen == all.map(\.id) && all.count == 6)
            await #expect(throws: StoreError.invalidCursor) { try await store.notifications(of: bob.id, after: all[0].id, limit: 2) }
            #expect(try await store.markRead(bob.id, ids: [all[0].id]) == 0)
            #expect(try await store.markRead(alice.id, ids: [all[0].id, all[0].id]) == 1)
            #expect(try await store.unreadNotifications(of: alice.id) == 5)
            #expect(try await store.markRead(alice.id, ids: nil) == 5)

            // Alerts: at most 50, even created at once from two instances; each fires once.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<60 {
                    let writer = n % 2 == 0 ? store : other
                    group.addTask {
                        // A creation the loaded machine could not write (the database busy past its wait) is made
                        // again; only "too many" ends it: what is counted is the limit, not the load.
                        for _ in 1...20 {
                            do {
                                _ = try await writer.createAlert(bob.id, symbol: Symbol("KO")!, condition: .below(Price(cents: Int64(n + 1) * 100)))
                                return
                            } catch StoreError.tooManyAlerts {
                                return
                            } catch {
                                try await Task.sleep(for: .milliseconds(50))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let alerts = try await store.alerts(of: bob.id)
            #expect(alerts.count == PriceAlert.maxPerUser)
            await #expect(throws: StoreError.tooManyAlerts(limit: 50)) {
                try await store.createAlert(bob.id, symbol: Symbol("KO")!, condition: .above(Price(cents: 1)))
            }
            let target = alerts[0].id
            async let fireHere = store.fire([(target, Price(cents: 5))])
            async let fireThere = other.fire([(target, Price(cents: 5))])
            let (here, there) = try await (fireHere, fireThere)
            #expect(here.count + there.count == 1)
            #expect(try await store.armedAlerts().filter { $0.user == bob.id }.count == 49)
            #expect(try await store.rearmAlert(target, of: bob.id).armed)
            await #expect(throws: StoreError.notFound("Alert")) { try await store.rearmAlert(target, of: alice.id) }
            try await store.deleteAlert(target, of: bob.id)

            // Devices: an endpoint belongs to whoever subscribed it last; at most `maxDevices` a player.
            for n in 0..<4 {
                clock.advance(by: 1)
                _ = try await store.addPushSubscription(alice.id, endpoint: "https://fcm.googleapis.com/\(n)", p256dh: "k", auth: "a", maxDevices: 3)
            }
            #expect(try await store.pushSubscriptions(of: alice.id).map(\.endpoint) == (1..<4).map { "https://fcm.googleapis.com/\($0)" })
            _ = try await store.addPushSubscription(bob.id, endpoint: "https://fcm.googleapis.com/3", p256dh: "k", auth: "a", maxDevices: 3)
            #expect(try await store.pushSubscriptions(of: alice.id).count == 2)
            #expect(try await store.deletePushSubscription(endpoint: "https://fcm.googleapis.com/3", of: alice.id) == false)
            #expect(try await store.deletePushSubscription(endpoint: "https://fcm.googleapis.com/3", of: nil))
            try await store.setPushKinds(alice.id, [.alert, .follower])
            #expect(try await store.pushKinds(of: alice.id) == [.alert, .follower])
            #expect(try await store.pushKinds(of: bob.id) == Set(NotificationKind.allCases))

            // Sign-in streaks count UTC days in a row.
            let day = SessionDate(year: 2026, month: 3, day: 2)
            #expect(try await store.recordSignIn(bob.id, on: day) == 1)
            #expect(try await store.recordSignIn(bob.id, on: day) == 1)
            #expect(try await store.recordSignIn(bob.id, on: day.adding(days: 1)) == 2)
            #expect(try await store.recordSignIn(bob.id, on: day.adding(days: 3)) == 1)

            // A top-up: Main is the oldest own live portfolio; the grant is journaled and balances.
            #expect(try await store.mainPortfolio(of: alice.id) == main.id)
            #expect(try await store.lastGrant(of: alice.id) == nil)
            let version = try await store.state(of: main.id, owner: alice.id).portfolio.version
            let entry = try await store.grantTopUp(Money(dollars: 1_000), to: main.id, owner: alice.id, version: version)
            #expect(entry.kind == .grant && entry.cashDelta == Money(dollars: 1_000))
            await #expect(throws: StoreError.portfolioChanged) {
                try await other.grantTopUp(Money(dollars: 1_000), to: main.id, owner: alice.id, version: version)
            }
            let state = try await other.state(of: main.id, owner: alice.id)
            #expect(state.book.deposits == Money(dollars: 1_000) && state.book.cash == Money(dollars: 101_000))
            #expect(try await store.lastGrant(of: alice.id) == clock.now())
            let audit = try await store.auditSnapshot(of: main.id, owner: alice.id, prices: [:])
            #expect(Invariants.check(audit).isEmpty, "\(Invariants.check(audit))")
        }
    }
}
