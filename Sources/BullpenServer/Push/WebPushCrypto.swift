import Crypto
import Foundation

/// Web Push message encryption (RFC 8291, the aes128gcm coding of RFC 8188), VAPID application
/// server identification (RFC 8292) and the VAPID key's file. Pure functions, no I/O but the key file.
enum WebPushCrypto {
    /// Why a Web Push operation was refused.
    enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// Text that is not base64url.
        case invalidBase64URL
        /// A public key that is not a 65-byte uncompressed point on P-256.
        case invalidPublicKey
        /// An authentication secret that is not 16 bytes.
        case invalidAuthSecret
        /// A salt that is not 16 bytes.
        case invalidSalt
        /// A plaintext (of this many bytes) longer than ``WebPushCrypto/maxPlaintextLength``.
        case plaintextTooLong(Int)
        /// A message body whose header or record is malformed, and how.
        case malformedBody(String)
        /// AES-GCM refused the record: another key or secret, or altered bytes.
        case decryptionFailed
        /// A record that does not end in the 0x02 delimiter of a single, final record (then zero padding).
        case missingDelimiter
        /// A push endpoint without an http or https scheme and a host.
        case invalidEndpoint
        /// A VAPID subject that is neither a `mailto:` nor an `https:` URI.
        case invalidSubject
        /// An expiry time that is not a whole number of seconds an `Int` holds.
        case invalidExpiry
        /// A VAPID Authorization header that does not parse, and why.
        case malformedVAPID(String)
        /// A VAPID token whose signature does not verify with its `k`.
        case badSignature
        /// A VAPID token for another push service.
        case wrongAudience(expected: String, actual: String)
        /// A VAPID token whose expiry has passed.
        case expired
        /// A VAPID token that expires more than 24 hours from now.
        case expiryTooFar
        /// A key file (at this path) that holds neither PEM nor a raw 32-byte P-256 key.
        case corruptKeyFile(String)

        /// The failure in a sentence.
        var description: String {
            switch self {
            case .invalidBase64URL: "not base64url"
            case .invalidPublicKey: "not a 65-byte uncompressed P-256 public key"
            case .invalidAuthSecret: "the authentication secret is not 16 bytes"
            case .invalidSalt: "the salt is not 16 bytes"
            case .plaintextTooLong(let count): "a plaintext of \(count) bytes is over the \(WebPushCrypto.maxPlaintextLength)-byte limit"
            case .malformedBody(let why): "malformed aes128gcm body: \(why)"
            case .decryptionFailed: "the record does not decrypt with these keys"
            case .missingDelimiter: "the record has no final 0x02 padding delimiter"
            case .invalidEndpoint: "the push endpoint is not an http(s) URL with a host"
            case .invalidSubject: "the VAPID subject is not a mailto: or https: URI"
            case .invalidExpiry: "the expiry is not a representable time"
            case .malformedVAPID(let why): "malformed VAPID authorization: \(why)"
            case .badSignature: "the VAPID signature does not verify"
            case .wrongAudience(let expected, let actual): "the VAPID audience is \(actual), not \(expected)"
            case .expired: "the VAPID token has expired"
            case .expiryTooFar: "the VAPID token expires more than 24 hours from now"
            case .corruptKeyFile(let path): "the VAPID key file \(path) holds no P-256 private key (left as it is)"
            }
        }
    }

    // MARK: base64url

    /// `bytes` in base64url (RFC 4648 section 5) without padding.
    static func base64URLEncode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url `text`, with or without its padding; throws ``Failure/invalidBase64URL`` for
    /// anything else (the `+` and `/` of plain base64, whitespace, bad padding, non-zero trailing bits).
    static func base64URLDecode(_ text: some StringProtocol) throws -> Data {
        var body = Substring(text)
        while body.last == "=" { body.removeLast() }
        let padding = text.count - body.count
        guard padding == 0 || (padding <= 2 && text.count % 4 == 0), body.count % 4 != 1,
              body.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw Failure.invalidBase64URL }
        let base64 = body.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            + String(repeating: "=", count: (4 - body.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), base64URLEncode(data) == body else { throw Failure.invalidBase64URL }
        return data
    }

    // MARK: Encryption (RFC 8291)

    /// The record size written in every header.
    static let recordSize = 4096
    /// The header's length: salt (16), rs (4), idlen (1) and the 65-byte key id.
    static let headerLength = 86
    /// The longest plaintext: 4096 − 86 (header) − 16 (AES-GCM tag) − 1 (delimiter) = 3993 bytes, so that
    /// the whole body fits the 4096 bytes every push service must accept (RFC 8030 section 7.2, RFC 8291
    /// section 4); its single record (at most 4010 bytes) then also fits within rs = 4096.
    static let maxPlaintextLength = recordSize - headerLength - 16 - 1

    /// Encrypts `plaintext` for a subscription's key and secret with a fresh application server key and salt.
    static func encrypt(_ plaintext: Data, userAgentPublicKey: Data, authSecret: Data) throws -> Data {
        try encrypt(plaintext, userAgentPublicKey: userAgentPublicKey, authSecret: authSecret,
                    applicationServerKey: P256.KeyAgreement.PrivateKey(),
                    salt: SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
    }

    /// The aes128gcm body carrying `plaintext` in one record: salt (16) || rs = 4096 (4, big-endian) ||
    /// idlen = 65 (1) || the application server's uncompressed public key || ciphertext and tag of
    /// `plaintext || 0x02`. The same inputs give the same bytes.
    static func encrypt(_ plaintext: Data, userAgentPublicKey: Data, authSecret: Data,
                        applicationServerKey: P256.KeyAgreement.PrivateKey, salt: Data) throws -> Data {
        guard plaintext.count <= maxPlaintextLength else { throw Failure.plaintextTooLong(plaintext.count) }
        return try seal(record: plaintext + [0x02], userAgentPublicKey: userAgentPublicKey, authSecret: authSecret,
                        applicationServerKey: applicationServerKey, salt: salt)
    }

    /// Encrypts `record` exactly as given (its delimiter and any padding included) into a body; tests use it
    /// to build records that ``encrypt(_:userAgentPublicKey:authSecret:applicationServerKey:salt:)`` never would.
    static func seal(record: Data, userAgentPublicKey: Data, authSecret: Data,
                     applicationServerKey: P256.KeyAgreement.PrivateKey, salt: Data) throws -> Data {
        guard salt.count == 16 else { throw Failure.invalidSalt }
        guard record.count + 16 <= recordSize else { throw Failure.plaintextTooLong(record.count) }
        let serverPublicKey = applicationServerKey.publicKey.x963Representation
        let secret = try applicationServerKey.sharedSecretFromKeyAgreement(with: agreementKey(userAgentPublicKey))
        let (key, nonce) = try contentKeys(secret: secret, authSecret: authSecret, salt: salt,
                                           userAgentPublicKey: userAgentPublicKey, applicationServerPublicKey: serverPublicKey)
        let box = try AES.GCM.seal(record, using: key, nonce: nonce)
        var body = Data(salt)
        withUnsafeBytes(of: UInt32(recordSize).bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(serverPublicKey.count))
        body.append(serverPublicKey)
        body.append(box.ciphertext)
        body.append(box.tag)
        return body
    }

    /// The plaintext of an aes128gcm body, as a user agent reads it: parses the header, derives the keys,
    /// opens the single record and strips its trailing zero padding and 0x02 delimiter.
    static func decrypt(_ body: Data, userAgentPrivateKey: P256.KeyAgreement.PrivateKey, authSecret: Data) throws -> Data {
        let bytes = [UInt8](body)
        guard bytes.count >= headerLength else { throw Failure.malformedBody("\(bytes.count) bytes, shorter than the header") }
        let rs = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        guard bytes[20] == 65 else { throw Failure.malformedBody("a key id of \(bytes[20]) bytes, not 65") }
        guard rs >= 18 else { throw Failure.malformedBody("a record size of \(rs), under 18") }
        let record = bytes[headerLength...]
        guard record.count >= 17 else { throw Failure.malformedBody("a record of \(record.count) bytes, too short for a tag") }
        guard record.count <= rs else { throw Failure.malformedBody("more than one record") }
        let salt = Data(bytes[0..<16]), serverPublicKey = Data(bytes[21..<headerLength])
        let secret = try userAgentPrivateKey.sharedSecretFromKeyAgreement(with: agreementKey(serverPublicKey))
        let (key, nonce) = try contentKeys(secret: secret, authSecret: authSecret, salt: salt,
                                           userAgentPublicKey: userAgentPrivateKey.publicKey.x963Representation,
                                           applicationServerPublicKey: serverPublicKey)
        let plain: [UInt8]
        do {
            let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: record.dropLast(16), tag: record.suffix(16))
            plain = try [UInt8](AES.GCM.open(box, using: key))
        } catch {
            throw Failure.decryptionFailed
        }
        guard let end = plain.lastIndex(where: { $0 != 0 }), plain[end] == 0x02 else { throw Failure.missingDelimiter }
        return Data(plain[..<end])
    }

    /// The content encryption key and nonce of RFC 8291 section 3.4 (HKDF-SHA-256 twice): the ECDH
    /// secret and authentication secret give the IKM, which with the salt gives the CEK and NONCE.
    static func contentKeys(secret: SharedSecret, authSecret: Data, salt: Data, userAgentPublicKey: Data,
                            applicationServerPublicKey: Data) throws -> (key: SymmetricKey, nonce: AES.GCM.Nonce) {
        guard authSecret.count == 16 else { throw Failure.invalidAuthSecret }
        let keyInfo = Data("WebPush: info".utf8) + [0] + userAgentPublicKey + applicationServerPublicKey
        let ikm = secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let cek = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt,
                                         info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt,
                                           info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        return (cek, try nonce.withUnsafeBytes { try AES.GCM.Nonce(data: Data($0)) })
    }

    /// The key-agreement key of a 65-byte uncompressed P-256 point; throws ``Failure/invalidPublicKey`` otherwise.
    private static func agreementKey(_ point: Data) throws -> P256.KeyAgreement.PublicKey {
        guard point.count == 65, point.first == 0x04,
              let key = try? P256.KeyAgreement.PublicKey(x963Representation: point) else { throw Failure.invalidPublicKey }
        return key
    }

    // MARK: VAPID (RFC 8292)

    /// The claims of a VAPID token.
    struct VAPIDClaims: Codable, Equatable, Sendable {
        /// The push service's origin.
        var aud: String
        /// When the token expires, in seconds since 1970.
        var exp: Int
        /// Who runs the application server: a `mailto:` or `https:` URI.
        var sub: String?
    }

    /// The JOSE header of a token; only `alg` is checked.
    private struct JWTHeader: Decodable {
        /// The signature algorithm, which must be ES256.
        var alg: String
    }

    /// The `Authorization` value for a push to `endpoint`: `vapid t=<JWT>, k=<key>`, where the JWT is
    /// ES256-signed by `key` (raw r || s) and claims the endpoint's origin, `expiresAt` in whole seconds
    /// and `subject`, and `k` is the base64url of the key's 65-byte uncompressed public point.
    static func vapidAuthorization(endpoint: URL, subject: String, key: P256.Signing.PrivateKey, expiresAt: Date) throws -> String {
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https:") else { throw Failure.invalidSubject }
        guard let exp = Int(exactly: expiresAt.timeIntervalSince1970.rounded(.down)) else { throw Failure.invalidExpiry }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let claims = try encoder.encode(VAPIDClaims(aud: audience(of: endpoint), exp: exp, sub: subject))
        let input = base64URLEncode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8)) + "." + base64URLEncode(claims)
        let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        return "vapid t=\(input).\(base64URLEncode(signature)), k=\(base64URLEncode(key.publicKey.x963Representation))"
    }

    /// The origin of `endpoint` as a token's audience: lowercased `scheme://host`, then `:port` unless
    /// the port is absent or the scheme's default.
    static func audience(of endpoint: URL) throws -> String {
        guard let scheme = endpoint.scheme?.lowercased(), scheme == "https" || scheme == "http",
              var host = endpoint.host?.lowercased(), !host.isEmpty else { throw Failure.invalidEndpoint }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let port = endpoint.port.flatMap { $0 == (scheme == "https" ? 443 : 80) ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)"
    }

    /// Checks a `vapid t=<JWT>, k=<key>` header as a push service does: an ES256 signature that verifies
    /// with `k`, `aud` equal to `audience`, and `exp` after `now` but no more than 24 hours after it.
    /// Returns `k`'s 65 bytes and the claims.
    static func verifyVAPID(_ header: String, audience: String, now: Date) throws -> (publicKey: Data, claims: VAPIDClaims) {
        let (token, k) = try vapidParameters(header)
        let publicKey = try base64URLDecode(k)
        guard publicKey.count == 65, publicKey.first == 0x04,
              let verifier = try? P256.Signing.PublicKey(x963Representation: publicKey) else { throw Failure.invalidPublicKey }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Failure.malformedVAPID("a token of \(parts.count) parts, not 3") }
        let decoder = JSONDecoder()
        guard let jose = try? decoder.decode(JWTHeader.self, from: base64URLDecode(parts[0])), jose.alg == "ES256"
        else { throw Failure.malformedVAPID("the token is not ES256") }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: base64URLDecode(parts[2])),
              verifier.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)) else { throw Failure.badSignature }
        guard let claims = try? decoder.decode(VAPIDClaims.self, from: base64URLDecode(parts[1]))
        else { throw Failure.malformedVAPID("the claims are not JSON with aud and an integer exp") }
        guard claims.aud == audience else { throw Failure.wrongAudience(expected: audience, actual: claims.aud) }
        guard Double(claims.exp) > now.timeIntervalSince1970 else { throw Failure.expired }
        guard Double(claims.exp) <= now.timeIntervalSince1970 + 24 * 3600 else { throw Failure.expiryTooFar }
        return (publicKey, claims)
    }

    /// The `t` and `k` parameters of a `vapid` credential, each required once; other parameters are ignored.
    private static func vapidParameters(_ header: String) throws -> (token: String, key: String) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard let space = text.firstIndex(of: " "), text[..<space].lowercased() == "vapid"
        else { throw Failure.malformedVAPID("not the vapid scheme") }
        var parameters: [String: String] = [:]
        for item in text[space...].split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw Failure.malformedVAPID("a parameter without a value") }
            let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
            guard parameters[name] == nil else { throw Failure.malformedVAPID("\(name) given twice") }
            parameters[name] = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        guard let token = parameters["t"], let key = parameters["k"] else { throw Failure.malformedVAPID("t or k is missing") }
        return (token, key)
    }

    // MARK: The VAPID key's file

    /// The VAPID key kept at `url`. An existing file is read (PEM, or the raw 32-byte scalar) and refused
    /// with ``Failure/corruptKeyFile(_:)`` if it holds neither, never replaced. A missing one is made, with
    /// its directory (0700) if need be, and written as PKCS #8 PEM with mode 0600.
    static func loadOrCreateVAPIDKey(at url: URL) throws -> P256.Signing.PrivateKey {
        let files = FileManager.default
        if files.fileExists(atPath: url.path) { return try readVAPIDKey(at: url) }
        let directory = url.deletingLastPathComponent()
        try files.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Written whole under a temporary name, made 0600 before a key byte is in it, then hard-linked into
        // place, which fails if another process got there first: no one reads a part-written key or loses one.
        let key = P256.Signing.PrivateKey()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        guard files.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path]) }
        defer { try? files.removeItem(at: temporary) }
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.write(contentsOf: Data(key.pemRepresentation.utf8))
        try handle.synchronize()
        try handle.close()
        do {
            try files.linkItem(at: temporary, to: url)
        } catch where files.fileExists(atPath: url.path) {
            return try readVAPIDKey(at: url)
        }
        return key
    }

    /// The key in the file at `url`: the raw 32-byte scalar, or PEM (PKCS #8 or SEC 1).
    private static func readVAPIDKey(at url: URL) throws -> P256.Signing.PrivateKey {
        let data = try Data(contentsOf: url)
        if data.count == 32, let key = try? P256.Signing.PrivateKey(rawRepresentation: data) { return key }
        if let pem = String(data: data, encoding: .utf8), pem.contains("-----BEGIN"),
           let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) { return key }
        throw Failure.corruptKeyFile(url.path)
    }
}
