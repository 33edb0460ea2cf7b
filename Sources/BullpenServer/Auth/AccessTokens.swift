import BullpenCore
import Crypto
import Foundation
import Synchronization

/// Access tokens: compact JWTs signed with HMAC-SHA256. Only `HS256` is accepted (the algorithm
/// is pinned, never read from the token), and `exp` is always checked.
struct AccessTokens: Sendable {
    static let defaultLifetime: TimeInterval = 15 * 60
    /// How long a token is valid: 15 minutes unless `BULLPEN_ACCESS_TOKEN_SECONDS` says otherwise.
    let lifetime: TimeInterval
    static let issuer = "bullpen"

    struct Claims: Codable, Sendable, Equatable {
        var sub: String
        var sid: String
        var iat: Int64
        var exp: Int64
        var iss: String
    }

    enum Failure: Error { case malformed, badSignature, expired, wrongIssuer }

    private let secret: Data
    private var key: SymmetricKey { SymmetricKey(data: secret) }
    private let time: any TimeSource
    /// Tokens whose signature was checked, with their claims: a client sends the same token for
    /// its whole lifetime, and checking it again each time (two base64 and two JSON decodes and
    /// an HMAC) was the largest cost of a request. Expiry is checked at every use.
    private let verified = VerifiedTokens()

    init(secret: Data, time: any TimeSource, lifetime: TimeInterval = AccessTokens.defaultLifetime) {
        self.secret = secret
        self.time = time
        self.lifetime = lifetime
    }

    /// Signs a token for `user` in `session`, valid for ``lifetime``.
    func issue(user: UserID, session: BullpenCore.SessionID) -> String {
        let now = Int64(time.now().timeIntervalSince1970)
        let claims = Claims(sub: user.description, sid: session.description, iat: now,
                            exp: now + Int64(lifetime), iss: Self.issuer)
        let header = Self.base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = Self.base64URL(try! encoder.encode(claims))
        let signingInput = header + "." + payload
        let signature = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key)
        return signingInput + "." + Self.base64URL(Data(signature))
    }

    /// Whom a valid token speaks for.
    struct Identity: Sendable, Equatable {
        var user: UserID
        var session: BullpenCore.SessionID
        var expires: Int64
    }

    /// Verifies signature, algorithm, issuer and expiry; returns whom the token speaks for.
    func verify(_ token: String) throws(Failure) -> Identity {
        let identity = try verified.identity(of: token) { token throws(Failure) in
            let claims = try checkSignature(token)
            guard let user = UserID(claims.sub), let session = BullpenCore.SessionID(claims.sid) else { throw .malformed }
            return Identity(user: user, session: session, expires: claims.exp)
        }
        guard Int64(time.now().timeIntervalSince1970) < identity.expires else { throw .expired }
        return identity
    }

    private func checkSignature(_ token: String) throws(Failure) -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Self.decodeBase64URL(parts[0]),
              let header = try? JSONDecoder().decode([String: String].self, from: headerData),
              header["alg"] == "HS256",
              let signature = Self.decodeBase64URL(parts[2]),
              let payload = Self.decodeBase64URL(parts[1])
        else { throw .malformed }
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key) else {
            throw .badSignature
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: payload) else { throw .malformed }
        guard claims.iss == Self.issuer else { throw .wrongIssuer }
        return claims
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of unpadded base64url `text` in its one canonical spelling: padding, other
    /// alphabets and unused low bits set in the last character are refused (each would let a
    /// token be spelt several ways, all verifying).
    static func decodeBase64URL(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), base64URL(data) == text else { return nil }
        return data
    }
}

/// The claims of tokens whose signature checked out, at most ``capacity`` (forgotten all at once
/// when full: a token is checked again on its next use).
final class VerifiedTokens: Sendable {
    static let capacity = 50_000
    private let known = Mutex<[String: AccessTokens.Identity]>([:])

    func identity(of token: String,
                  checking check: (String) throws(AccessTokens.Failure) -> AccessTokens.Identity) throws(AccessTokens.Failure) -> AccessTokens.Identity {
        if let identity = known.withLock({ $0[token] }) { return identity }
        let checked = try check(token)
        known.withLock { known in
            if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
            known[token] = checked
        }
        return checked
    }
}

/// Refresh tokens: 32 random bytes; only their SHA-256 is stored.
enum RefreshTokens {
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return AccessTokens.base64URL(Data(bytes))
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hex
    }
}
