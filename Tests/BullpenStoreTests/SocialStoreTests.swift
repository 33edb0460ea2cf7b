import BullpenCore
@testable import BullpenStore
import Foundation
import Testing

/// The social queries on both databases: privacy is decided in them, so each runs on SQLite and
/// on PostgreSQL.
@Suite("Social store")
struct SocialStoreTests {
    @Test(arguments: TestDatabases.kinds)
    func profilesSearchFollowsBlocksAndTheFeed(kind: DatabaseKind) async throws {
        try await TestDatabases.withStore(kind) { store, _ in
            let tag = String(UUID().uuidString.prefix(6)).lowercased()
            let (alice, aliceMain) = try await store.makeUser("al_\(tag)")
            let (bob, _) = try await store.makeUser("bo%\(tag)")
            let (carol, carolMain) = try await store.makeUser("ca-\(tag)")

            try await store.updateProfile(alice.id, displayName: "Alice", bio: "Two\nlines")
            let seen = try #require(try await store.profile(usernameKey: "al_\(tag)", viewer: bob.id))
            #expect(seen.displayName == "Alice" && seen.bio == "Two\nlines" && seen.followers == 0)
            try await store.updateProfile(alice.id, displayName: nil, bio: "")
            #expect(try await store.profile(usernameKey: "al_\(tag)", viewer: bob.id)?.bio == nil)

            // Search: a prefix, any case; `_` and `%` are letters.
            #expect(try await store.searchUsers(prefix: "AL_", viewer: bob.id, offset: 0, limit: 10).map(\.username).contains("al_\(tag)"))
            #expect(try await store.searchUsers(prefix: "bo%\(tag)", viewer: alice.id, offset: 0, limit: 10).map(\.username) == ["bo%\(tag)"])
            #expect(try await store.searchUsers(prefix: "b_%\(tag)", viewer: alice.id, offset: 0, limit: 10).isEmpty)

            // Private trades stay out of the feed; public ones come in, newest first, quantities only in full.
            try await store.follow(alice.id, by: bob.id)
            try await store.follow(alice.id, by: bob.id)
            try await store.follow(carol.id, by: bob.id)
            _ = try await store.trade(.buy, 2, "KO", at: "50", in: aliceMain.id, owner: alice.id)
            _ = try await store.trade(.buy, 3, "KO", at: "50", in: carolMain.id, owner: carol.id)
            #expect(try await store.feed(for: bob.id, after: nil, limit: 10).isEmpty)
            try await store.setVisibility(aliceMain.id, owner: alice.id, to: .public)
            #expect(try await store.portfolio(aliceMain.id, owner: alice.id).visibility == .public)
            _ = try await store.trade(.buy, 1, "PG", at: "150", in: aliceMain.id, owner: alice.id)
            var feed = try await store.feed(for: bob.id, after: nil, limit: 10)
            #expect(feed.count == 2 && feed.allSatisfy { $0.actor.username == "al_\(tag)" })
            guard case .trade(_, _, let symbol, _, let quantity, _, _) = feed[0].kind else { Issue.record("not a trade"); return }
            #expect(symbol == Symbol("PG") && quantity == nil)
            // A page after the first event is the second.
            let next = try await store.feed(for: bob.id, after: .init(id: feed[0].id, at: feed[0].at), limit: 10)
            #expect(next.map(\.id) == [feed[1].id])
            try await store.setVisibility(aliceMain.id, owner: alice.id, to: .full)
            feed = try await store.feed(for: bob.id, after: nil, limit: 10)
            if case .trade(_, _, _, _, let quantity, _, _) = feed[0].kind { #expect(quantity == 1) }
            #expect(try await store.publicPortfolios(owner: alice.id).map(\.id) == [aliceMain.id])
            #expect(try await store.publicPortfolios(owner: carol.id).isEmpty)

            #expect(try await store.profile(usernameKey: "al_\(tag)", viewer: carol.id)?.followers == 1)
            #expect(try await store.follows(of: alice.id, followers: true, viewer: carol.id, offset: 0, limit: 10).map(\.username) == ["bo%\(tag)"])
            #expect(try await store.follows(of: bob.id, followers: false, viewer: carol.id, offset: 0, limit: 10).count == 2)

            // A block ends the follows both ways and hides each from the other.
            try await store.follow(bob.id, by: alice.id)
            try await store.block(bob.id, by: alice.id)
            try await store.block(bob.id, by: alice.id)
            #expect(try await store.blocked(between: bob.id, and: alice.id))
            #expect(try await store.profile(usernameKey: "al_\(tag)", viewer: bob.id) == nil)
            #expect(try await store.profile(usernameKey: "bo%\(tag)", viewer: alice.id) == nil)
            #expect(try await !store.isFollowing(alice.id, by: bob.id))
            #expect(try await !store.isFollowing(bob.id, by: alice.id))
            #expect(try await store.feed(for: bob.id, after: nil, limit: 10).isEmpty)
            #expect(try await store.searchUsers(prefix: "al_\(tag)", viewer: bob.id, offset: 0, limit: 10).isEmpty)
            #expect(try await store.follows(of: carol.id, followers: true, viewer: alice.id, offset: 0, limit: 10).isEmpty)
            #expect(try await store.blockedUsers(by: alice.id).map(\.username) == ["bo%\(tag)"])
            try await store.unblock(bob.id, by: alice.id)
            #expect(try await store.profile(usernameKey: "al_\(tag)", viewer: bob.id) != nil)

            // Avatars.
            try await store.setAvatar(alice.id, contentType: "image/png", bytes: [1, 2, 3])
            try await store.setAvatar(alice.id, contentType: "image/jpeg", bytes: [4, 5])
            let avatar = try #require(try await store.avatar(alice.id))
            #expect(avatar.contentType == "image/jpeg" && Array(avatar.bytes) == [4, 5])
            #expect(try await store.profile(usernameKey: "al_\(tag)", viewer: bob.id)?.avatarUpdatedAt != nil)
            try await store.deleteAvatar(alice.id)
            #expect(try await store.avatar(alice.id) == nil)
        }
    }
}
