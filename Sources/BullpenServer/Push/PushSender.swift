import AsyncHTTPClient
import BullpenAPI
import BullpenCore
import BullpenStore
import Crypto
import Foundation
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import Vapor

/// Sends notifications to players' devices as Web Push messages (RFC 8030), encrypted for each
/// device (RFC 8291, aes128gcm) and signed with the server's VAPID key (RFC 8292), for the kinds
/// each player turned on. A device whose push service answers 404 or 410 is forgotten.
///
/// The server posts to addresses that browsers hand it, so it posts only to the push services
/// of ``allowedHosts`` (the browsers' own, by default), over HTTPS unless told otherwise.
struct PushSender: Sendable {
    /// The push services of Chrome, Firefox, Safari and Edge.
    static let defaultHosts = ["fcm.googleapis.com", "updates.push.services.mozilla.com", "push.services.mozilla.com",
                               "web.push.apple.com", "notify.windows.com"]

    let store: BullpenStore
    /// The VAPID private key's raw representation (Crypto's key type is not `Sendable`).
    let keyBytes: Data
    /// Who runs this server, for the push services (`mailto:` or an https URL).
    let subject: String
    let allowedHosts: [String]
    let allowInsecure: Bool
    let client: HTTPClient
    let logger: Logger

    /// The application server key browsers subscribe with: base64url of the uncompressed point.
    var publicKey: String { (try? key()).map { WebPushCrypto.base64URLEncode($0.publicKey.x963Representation) } ?? "" }

    func key() throws -> P256.Signing.PrivateKey { try P256.Signing.PrivateKey(rawRepresentation: keyBytes) }

    /// Whether the server may post to `endpoint`: a push service it knows, by a plain host name, on
    /// the standard port, over HTTPS (or HTTP anywhere when allowed, for a local stand-in in tests).
    func accepts(_ endpoint: String) -> Bool { Self.accepts(endpoint, hosts: allowedHosts, insecure: allowInsecure) }

    static func accepts(_ endpoint: String, hosts allowedHosts: [String], insecure allowInsecure: Bool) -> Bool {
        guard let url = URL(string: endpoint), let host = url.host(percentEncoded: true)?.lowercased(), url.user == nil, url.password == nil,
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) || allowInsecure
        else { return false }
        if url.scheme == "https" {
            guard url.port == nil || url.port == 443 || allowInsecure else { return false }
        } else if !(allowInsecure && url.scheme == "http") {
            return false
        }
        return allowedHosts.contains { host == $0 || host.hasSuffix("." + $0) }
    }

    /// Most devices a player may register: a new one beyond it replaces their oldest.
    static let maxDevices = 10

    /// The message a device shows: small JSON the service worker reads.
    struct Payload: Codable, Sendable {
        var title: String
        var body: String
        var link: String?
        var kind: String
        var id: String
    }

    /// Sends `notification` to every device of its player, if they get this kind as a push.
    func send(_ notification: NotificationRecord) async {
        do {
            guard try await store.pushKinds(of: notification.user).contains(notification.kind) else { return }
            let devices = try await store.pushSubscriptions(of: notification.user)
            guard !devices.isEmpty else { return }
            let payload = try JSONEncoder().encode(Payload(title: notification.title, body: notification.body, link: notification.link,
                                                           kind: notification.kind.rawValue, id: notification.id.uuidString.lowercased()))
            await withTaskGroup(of: Void.self) { group in
                for device in devices { group.addTask { await send(payload, to: device) } }
            }
        } catch {
            logger.warning("push not sent", metadata: ["error": "\(error)"])
        }
    }

    /// Posts one encrypted message to one device's push service.
    func send(_ payload: Data, to device: BullpenStore.PushSubscription) async {
        guard accepts(device.endpoint), let endpoint = URL(string: device.endpoint) else {
            _ = try? await store.deletePushSubscription(endpoint: device.endpoint, of: nil)
            return
        }
        do {
            let body = try WebPushCrypto.encrypt(payload, userAgentPublicKey: try WebPushCrypto.base64URLDecode(device.p256dh),
                                                 authSecret: try WebPushCrypto.base64URLDecode(device.auth))
            var request = HTTPClientRequest(url: device.endpoint)
            request.method = .POST
            request.headers.add(name: "TTL", value: "86400")
            request.headers.add(name: "Urgency", value: "normal")
            request.headers.add(name: "Content-Encoding", value: "aes128gcm")
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
            request.headers.add(name: "Authorization", value: try WebPushCrypto.vapidAuthorization(
                endpoint: endpoint, subject: subject, key: try key(), expiresAt: Date().addingTimeInterval(12 * 3600)))
            request.body = .bytes(ByteBuffer(data: body))
            let response = try await client.execute(request, timeout: .seconds(10))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            switch response.status.code {
            case 200..<300: break
            case 404, 410: _ = try await store.deletePushSubscription(endpoint: device.endpoint, of: nil)
            default: logger.notice("push refused", metadata: ["status": "\(response.status.code)", "host": "\(endpoint.host ?? "")"])
            }
        } catch {
            logger.notice("push not delivered", metadata: ["error": "\(error)", "host": "\(endpoint.host ?? "")"])
        }
    }
}

/// Shuts the push sender's HTTP client down with the application (after the background work).
struct PushClientLifecycle: LifecycleHandler {
    let client: HTTPClient
    func shutdownAsync(_ application: Application) async { try? await client.shutdown() }
}

extension PushSender {
    /// The sender with the VAPID key kept in the data directory (`vapid-key`, made on first start,
    /// mode 0600); nil, with a warning, when the key cannot be read or made.
    static func make(store: BullpenStore, configuration: ServerConfiguration, logger: Logger) -> PushSender? {
        do {
            let key = try WebPushCrypto.loadOrCreateVAPIDKey(at: configuration.dataDirectory.appendingPathComponent("vapid-key"))
            // Its own client, which follows no redirect: a push service's answer never sends it elsewhere.
            var http = HTTPClient.Configuration(redirectConfiguration: .disallow)
            http.timeout = .init(connect: .seconds(5), read: .seconds(10))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
            return PushSender(store: store, keyBytes: key.rawRepresentation, subject: configuration.pushSubject, allowedHosts: configuration.pushHosts,
                              allowInsecure: configuration.pushAllowHTTP, client: client, logger: logger)
        } catch {
            logger.warning("browser push is off: the VAPID key could not be read or made", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
