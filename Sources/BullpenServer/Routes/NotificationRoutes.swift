import BullpenAPI
import BullpenCore
import BullpenStore
import Crypto
import Foundation
import Vapor

/// Notifications (`GET /api/v1/notifications`, `…/unread`, `POST …/read`), price alerts
/// (`GET/POST /api/v1/alerts`, `DELETE /api/v1/alerts/{id}`, `POST …/{id}/rearm`), browser push
/// (`GET /api/v1/push`, `PUT …/kinds`, `POST …/subscriptions`, `POST …/unsubscribe`) and top-ups
/// (`GET/POST /api/v1/portfolios/{id}/top-up`). Everything here is the caller's own.
struct NotificationRoutes: RouteCollection {
    static let maxPageSize = 100

    func boot(routes: any RoutesBuilder) throws {
        let notifications = routes.grouped("notifications")
        notifications.get(use: list)
        notifications.get("unread", use: unread)
        notifications.post("read", use: markRead)
        let alerts = routes.grouped("alerts")
        alerts.get(use: listAlerts)
        alerts.post(use: createAlert)
        alerts.delete(":alertId", use: deleteAlert)
        alerts.post(":alertId", "rearm", use: rearmAlert)
        let push = routes.grouped("push")
        push.get(use: pushSettings)
        push.put("kinds", use: setPushKinds)
        push.post("subscriptions", use: subscribe)
        push.post("unsubscribe", use: unsubscribe)
        let topUp = routes.grouped("portfolios", ":id", "top-up")
        topUp.get(use: topUpStatus)
        topUp.post(use: claimTopUp)
    }

    // MARK: Notifications

    @Sendable func list(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let limit = min(try req.pageLimit(), Self.maxPageSize)
        let after = try req.pageCursor.map { cursor in
            guard let plain = PageCursor.unwrap(cursor), plain.hasPrefix("n1:"), let id = UUID(uuidString: String(plain.dropFirst(3))) else {
                throw APIError.invalidCursor
            }
            return id
        }
        let found = try await req.bullpen.store.notifications(of: caller.user, after: after, limit: limit + 1)
        let page = Array(found.prefix(limit))
        let next = found.count > limit ? page.last.map { PageCursor.wrap("n1:\($0.id.uuidString.lowercased())") } : nil
        return try jsonResponse(NotificationPage(notifications: page.map(NotificationDTO.init),
                                                 unread: try await req.bullpen.store.unreadNotifications(of: caller.user), nextCursor: next))
    }

    @Sendable func unread(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(UnreadCount(unread: try await req.bullpen.store.unreadNotifications(of: caller.user)))
    }

    @Sendable func markRead(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(MarkReadRequest.self)
        switch (body.ids, body.all) {
        case (nil, true?):
            try await req.bullpen.store.markRead(caller.user, ids: nil)
        case (let ids?, nil), (let ids?, false?):
            guard ids.count <= 500 else { throw APIError.validation("ids names at most 500 notifications.") }
            // An id that is not the caller's (or not an id at all) marks nothing.
            try await req.bullpen.store.markRead(caller.user, ids: ids.compactMap(UUID.init(uuidString:)))
        default:
            throw APIError.validation("Send {\"ids\":[...]} to mark some notifications read, or {\"all\":true} for all of them.")
        }
        return try jsonResponse(UnreadCount(unread: try await req.bullpen.store.unreadNotifications(of: caller.user)))
    }

    // MARK: Price alerts

    @Sendable func listAlerts(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(AlertList(alerts: try await req.bullpen.store.alerts(of: caller.user).map(AlertDTO.init),
                                          limit: PriceAlert.maxPerUser))
    }

    @Sendable func createAlert(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(CreateAlertRequest.self)
        guard let symbol = Symbol(body.symbol), !symbol.isOption,
              try await req.bullpen.requireMarketData().asset(symbol) != nil else { throw APIError.unknownSymbol(body.symbol) }
        let condition: AlertCondition
        switch body.condition {
        case "above", "below":
            guard let price = Price(parsing: body.value), price.ticks > 0, price.ticks <= Price(cents: 100_000_000).ticks else {
                throw APIError.validation("value is the price to watch for, in dollars (more than 0 and at most 1000000, up to 4 decimals), not '\(body.value)'.")
            }
            condition = body.condition == "above" ? .above(price) : .below(price)
        case "move":
            guard let percent = Percent(parsing: body.value), percent.hundredths >= 10, percent.hundredths <= 10_000 else {
                throw APIError.validation("value is the move to watch for, in percent (0.1 to 100, up to 2 decimals), not '\(body.value)'.")
            }
            condition = .move(percent)
        default:
            throw APIError.validation("condition is above, below or move, not '\(body.condition)'.")
        }
        let alert = try await req.bullpen.store.createAlert(caller.user, symbol: symbol, condition: condition)
        await req.bullpen.alertMonitor?.invalidate()
        return try jsonResponse(AlertDTO(alert), status: .created)
    }

    @Sendable func deleteAlert(req: Request) async throws -> Response {
        let caller = try await req.caller()
        try await req.bullpen.store.deleteAlert(try Self.alertID(req), of: caller.user)
        await req.bullpen.alertMonitor?.invalidate()
        return Response(status: .noContent)
    }

    @Sendable func rearmAlert(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let alert = try await req.bullpen.store.rearmAlert(try Self.alertID(req), of: caller.user)
        await req.bullpen.alertMonitor?.invalidate()
        return try jsonResponse(AlertDTO(alert))
    }

    static func alertID(_ req: Request) throws -> UUID {
        guard let id = req.parameters.get("alertId").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound("Alert") }
        return id
    }

    // MARK: Browser push

    @Sendable func pushSettings(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(try await Self.settings(req, caller.user))
    }

    @Sendable func setPushKinds(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(PushKindsRequest.self)
        var kinds = Set<NotificationKind>()
        for text in body.kinds {
            guard let kind = NotificationKind(rawValue: text) else {
                throw APIError.validation("kinds are \(NotificationKind.allCases.map(\.rawValue).joined(separator: ", ")); '\(text)' is not one.")
            }
            kinds.insert(kind)
        }
        try await req.bullpen.store.setPushKinds(caller.user, kinds)
        return try jsonResponse(try await Self.settings(req, caller.user))
    }

    @Sendable func subscribe(req: Request) async throws -> Response {
        let caller = try await req.caller()
        guard let push = req.bullpen.push else { throw APIError(.busy, "Browser notifications are not available on this server just now.") }
        let body = try req.decodeJSON(PushSubscriptionRequest.self)
        guard body.endpoint.utf8.count <= 1_000, push.accepts(body.endpoint) else {
            throw APIError.validation("endpoint must be the https address of a browser's push service.")
        }
        guard let key = try? WebPushCrypto.base64URLDecode(body.keys.p256dh), key.count == 65, key.first == 4,
              (try? P256.KeyAgreement.PublicKey(x963Representation: key)) != nil,
              let auth = try? WebPushCrypto.base64URLDecode(body.keys.auth), auth.count == 16 else {
            throw APIError.validation("keys.p256dh is the browser's P-256 public key (65 bytes) and keys.auth its 16-byte secret, both base64url.")
        }
        _ = try await req.bullpen.store.addPushSubscription(caller.user, endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth,
                                                            maxDevices: PushSender.maxDevices)
        return try jsonResponse(try await Self.settings(req, caller.user), status: .created)
    }

    @Sendable func unsubscribe(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let body = try req.decodeJSON(PushUnsubscribeRequest.self)
        try await req.bullpen.store.deletePushSubscription(endpoint: body.endpoint, of: caller.user)
        return try jsonResponse(try await Self.settings(req, caller.user))
    }

    static func settings(_ req: Request, _ user: UserID) async throws -> PushSettingsDTO {
        let enabled = try await req.bullpen.store.pushKinds(of: user)
        return PushSettingsDTO(publicKey: req.bullpen.push?.publicKey ?? "",
                               kinds: NotificationKind.offered.map { .init(kind: $0.rawValue, label: $0.label, enabled: enabled.contains($0)) },
                               devices: try await req.bullpen.store.pushSubscriptions(of: user).count)
    }

    // MARK: Top-ups

    @Sendable func topUpStatus(req: Request) async throws -> Response {
        let caller = try await req.caller()
        return try jsonResponse(TopUpStatus(try await req.bullpen.portfolios.topUpCheck(try req.portfolioID(), owner: caller.user)))
    }

    @Sendable func claimTopUp(req: Request) async throws -> Response {
        let caller = try await req.caller()
        let id = try req.portfolioID()
        _ = try await req.bullpen.portfolios.topUp(id, owner: caller.user)
        return try jsonResponse(TopUpStatus(try await req.bullpen.portfolios.topUpCheck(id, owner: caller.user)))
    }
}

extension TopUpStatus {
    init(_ check: PortfolioService.TopUpCheck) {
        var amount = Money.zero, next: Date?
        switch check.outcome {
        case .success(let granted)?: amount = granted
        case .failure(.tooSoon(let at))?: next = at
        default: break
        }
        self.init(available: amount > .zero, amount: amount.decimalString, equity: check.equity.decimalString,
                  threshold: check.threshold.decimalString, nextAt: next, reason: PortfolioService.topUpReason(check))
    }
}

extension AlertDTO {
    init(_ alert: PriceAlert) {
        let value = switch alert.condition {
        case .above(let price), .below(let price): price.decimalString
        case .move(let percent): percent.decimalString
        }
        self.init(id: alert.id.uuidString.lowercased(), symbol: alert.symbol.rawValue, condition: alert.condition.kind, value: value,
                  description: "\(alert.symbol.rawValue) \(alert.condition.phrase)", armed: alert.armed, createdAt: alert.createdAt,
                  triggeredAt: alert.triggeredAt, triggeredPrice: alert.triggeredPrice?.decimalString)
    }
}
