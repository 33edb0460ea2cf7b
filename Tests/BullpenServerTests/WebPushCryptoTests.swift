import Crypto
import Foundation
import Testing
@testable import BullpenServer

/// Web Push encryption (RFC 8291) and VAPID (RFC 8292) against the RFCs' own examples, their failures,
/// and the VAPID key file.
@Suite("Web Push encryption")
struct WebPushCryptoTests {
    /// RFC 8291 section 5 and appendix A, base64url with the RFC's line breaks joined.
    enum RFC8291 {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let plaintextBytes = "V2hlbiBJIGdyb3cgdXAsIEkgd2FudCB0byBiZSBhIHdhdGVybWVsb24"
        static let asPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIg" + "Dll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcx" + "aOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
        static let message = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml"
            + "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT"
            + "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        static let ecdhSecret = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"
        static let cek = "oIhVW04MRdy2XN9CiKLxTg"
        static let nonce = "4h_95klXJ5E_qnoN"
    }

    /// RFC 8292 section 2.4's token and key; the token expired in 2016.
    enum RFC8292 {
        static let token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9."
            + "eyJhdWQiOiJodHRwczovL3B1c2guZXhhbXBsZS5uZXQiLCJleHAiOjE0NTM1MjM3NjgsInN1YiI6Im1haWx0bzpwdXNoQGV4YW1wbGUuY29tIn0."
            + "i3CYb7t4xfxCDquptFOepC9GAu_HLGkMlMuCGSK2rpiUfnK9ojFwDXb1JrErtmysazNjjvW2L9OkSSHzvoD1oA"
        static let key = "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs"
        static let expiry = 1_453_523_768
    }

    /// The bytes of base64url `text`.
    static func bytes(_ text: String) throws -> Data { try WebPushCrypto.base64URLDecode(text) }

    /// The RFC 8291 example's application server and user agent keys.
    static func rfcKeys() throws -> (server: P256.KeyAgreement.PrivateKey, userAgent: P256.KeyAgreement.PrivateKey) {
        (try P256.KeyAgreement.PrivateKey(rawRepresentation: bytes(RFC8291.asPrivate)),
         try P256.KeyAgreement.PrivateKey(rawRepresentation: bytes(RFC8291.uaPrivate)))
    }

    /// A fresh user agent: its key pair and authentication secret.
    static func freshUserAgent() -> (key: P256.KeyAgreement.PrivateKey, auth: Data) {
        (P256.KeyAgreement.PrivateKey(), SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
    }

    /// A directory of its own under the system's temporary directory.
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("webpush-\(UUID().uuidString)")
    }

    // MARK: base64url

    /// Encoding drops padding; decoding takes it or not, and refuses plain base64, whitespace and non-canonical text.
    @Test("base64url: no padding out, padding optional in, anything else refused")
    func base64URL() throws {
        #expect(WebPushCrypto.base64URLEncode(Data([0xFB, 0xFF])) == "-_8")
        #expect(WebPushCrypto.base64URLEncode(Data("ab".utf8)) == "YWI")
        #expect(try WebPushCrypto.base64URLDecode("-_8") == Data([0xFB, 0xFF]))
        #expect(try WebPushCrypto.base64URLDecode("-_8=") == Data([0xFB, 0xFF]))
        #expect(try WebPushCrypto.base64URLDecode("YQ==") == Data("a".utf8))
        #expect(try WebPushCrypto.base64URLDecode("") == Data())
        for bad in ["+/8", "-_8==", "YQ=", "Y", "YQ=a", "YW I", "YWI\n", "-_9", "====", "é"] {
            #expect(throws: WebPushCrypto.Failure.invalidBase64URL, "\(bad)") { try WebPushCrypto.base64URLDecode(bad) }
        }
    }

    // MARK: RFC 8291

    /// The RFC's keys and salt give its message byte for byte.
    @Test("RFC 8291 example: encrypting gives the RFC's message exactly")
    func rfcEncrypt() throws {
        let (server, _) = try Self.rfcKeys()
        #expect(try server.publicKey.x963Representation == Self.bytes(RFC8291.asPublic))
        let body = try WebPushCrypto.encrypt(Data(RFC8291.plaintext.utf8), userAgentPublicKey: Self.bytes(RFC8291.uaPublic),
                                             authSecret: Self.bytes(RFC8291.authSecret), applicationServerKey: server,
                                             salt: Self.bytes(RFC8291.salt))
        #expect(try Self.bytes(RFC8291.plaintextBytes) == Data(RFC8291.plaintext.utf8))
        // 86 (header) + 41 + 1 (delimiter) + 16 (tag); the RFC's example request says Content-Length: 145,
        // but its 192 base64url characters are 144 bytes.
        #expect(body.count == 144)
        #expect(WebPushCrypto.base64URLEncode(body) == RFC8291.message)
    }

    /// The key derivation matches the RFC's intermediate values, so a mismatch points at its step.
    @Test("RFC 8291 example: the ECDH secret, CEK and nonce of appendix A")
    func rfcIntermediateValues() throws {
        let (server, userAgent) = try Self.rfcKeys()
        let secret = try userAgent.sharedSecretFromKeyAgreement(with: server.publicKey)
        #expect(try secret.withUnsafeBytes { Data($0) } == Self.bytes(RFC8291.ecdhSecret))
        let (key, nonce) = try WebPushCrypto.contentKeys(secret: secret, authSecret: Self.bytes(RFC8291.authSecret),
                                                         salt: Self.bytes(RFC8291.salt),
                                                         userAgentPublicKey: Self.bytes(RFC8291.uaPublic),
                                                         applicationServerPublicKey: Self.bytes(RFC8291.asPublic))
        #expect(try key.withUnsafeBytes { Data($0) } == Self.bytes(RFC8291.cek))
        #expect(try nonce.withUnsafeBytes { Data($0) } == Self.bytes(RFC8291.nonce))
    }

    /// The UA's private key opens the RFC's message.
    @Test("RFC 8291 example: the user agent decrypts the RFC's message")
    func rfcDecrypt() throws {
        let (_, userAgent) = try Self.rfcKeys()
        #expect(try userAgent.publicKey.x963Representation == Self.bytes(RFC8291.uaPublic))
        let plaintext = try WebPushCrypto.decrypt(Self.bytes(RFC8291.message), userAgentPrivateKey: userAgent,
                                                  authSecret: Self.bytes(RFC8291.authSecret))
        #expect(String(decoding: plaintext, as: UTF8.self) == RFC8291.plaintext)
    }

    /// Every alteration of the RFC's message, a wrong secret and every truncation throw.
    @Test("RFC 8291 example: altered bytes, another secret or a short body are refused")
    func rfcTampering() throws {
        let (_, userAgent) = try Self.rfcKeys()
        let message = try Self.bytes(RFC8291.message), auth = try Self.bytes(RFC8291.authSecret)
        /// Decrypts `body` as the RFC's user agent.
        func decrypt(_ body: Data, auth: Data = auth) throws -> Data {
            try WebPushCrypto.decrypt(body, userAgentPrivateKey: userAgent, authSecret: auth)
        }
        for index in [0, 100, message.count - 1] { // the salt, the ciphertext, the tag
            var altered = message
            altered[index] ^= 0x01
            #expect(throws: WebPushCrypto.Failure.decryptionFailed, "byte \(index)") { try decrypt(altered) }
        }
        var otherAuth = auth
        otherAuth[0] ^= 0x80
        #expect(throws: WebPushCrypto.Failure.decryptionFailed) { try decrypt(message, auth: otherAuth) }
        #expect(throws: WebPushCrypto.Failure.invalidAuthSecret) { try decrypt(message, auth: auth.prefix(15)) }
        for length in [0, 16, 20, 21, 85, 86, 102, message.count - 1] {
            #expect(throws: WebPushCrypto.Failure.self, "\(length) bytes") { try decrypt(message.prefix(length)) }
        }
        var idlen = message
        idlen[20] = 64
        #expect(throws: WebPushCrypto.Failure.malformedBody("a key id of 64 bytes, not 65")) { try decrypt(idlen) }
        var keyID = message
        keyID[21] = 0x05 // not the uncompressed form
        #expect(throws: WebPushCrypto.Failure.invalidPublicKey) { try decrypt(keyID) }
        var offCurve = message
        offCurve[85] ^= 0x01 // y no longer on the curve for x
        #expect(throws: WebPushCrypto.Failure.invalidPublicKey) { try decrypt(offCurve) }
        var smallRecords = message
        smallRecords[16..<20] = Data([0, 0, 0, 18])
        #expect(throws: WebPushCrypto.Failure.malformedBody("more than one record")) { try decrypt(smallRecords) }
    }

    // MARK: Fresh keys

    /// Fresh keys round-trip, each message gets a new salt and key, and the longest fills 4096 bytes.
    @Test("Round trip with fresh keys, empty to the longest plaintext")
    func roundTrip() throws {
        let (userAgent, auth) = Self.freshUserAgent()
        let publicKey = userAgent.publicKey.x963Representation
        for length in [0, 1, 42, 1000, WebPushCrypto.maxPlaintextLength] {
            let plaintext = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let body = try WebPushCrypto.encrypt(plaintext, userAgentPublicKey: publicKey, authSecret: auth)
            #expect(body.count == WebPushCrypto.headerLength + length + 1 + 16)
            #expect(try WebPushCrypto.decrypt(body, userAgentPrivateKey: userAgent, authSecret: auth) == plaintext)
        }
        #expect(WebPushCrypto.maxPlaintextLength == 3993)
        let longest = try WebPushCrypto.encrypt(Data(count: 3993), userAgentPublicKey: publicKey, authSecret: auth)
        #expect(longest.count == 4096)
        let first = try WebPushCrypto.encrypt(Data("same".utf8), userAgentPublicKey: publicKey, authSecret: auth)
        let second = try WebPushCrypto.encrypt(Data("same".utf8), userAgentPublicKey: publicKey, authSecret: auth)
        #expect(first.prefix(16) != second.prefix(16), "a fresh salt each time")
        #expect(first[21..<86] != second[21..<86], "a fresh application server key each time")
        #expect(throws: WebPushCrypto.Failure.decryptionFailed) {
            try WebPushCrypto.decrypt(first, userAgentPrivateKey: P256.KeyAgreement.PrivateKey(), authSecret: auth)
        }
    }

    /// One byte over the bound is refused before any encryption.
    @Test("A plaintext over 3993 bytes is refused")
    func plaintextTooLong() throws {
        let (userAgent, auth) = Self.freshUserAgent()
        #expect(throws: WebPushCrypto.Failure.plaintextTooLong(3994)) {
            try WebPushCrypto.encrypt(Data(count: 3994), userAgentPublicKey: userAgent.publicKey.x963Representation, authSecret: auth)
        }
    }

    /// Short, compressed, off-curve or zero keys, a 17-byte secret and a short salt are refused.
    @Test("Bad subscription keys, secrets and salts are refused")
    func badInputs() throws {
        let (userAgent, auth) = Self.freshUserAgent()
        let point = userAgent.publicKey.x963Representation
        var offCurve = point
        offCurve[64] ^= 0x01
        for key in [point.prefix(64), userAgent.publicKey.compressedRepresentation, offCurve, Data(count: 65)] {
            #expect(throws: WebPushCrypto.Failure.invalidPublicKey) {
                try WebPushCrypto.encrypt(Data("hi".utf8), userAgentPublicKey: key, authSecret: auth)
            }
        }
        #expect(throws: WebPushCrypto.Failure.invalidAuthSecret) {
            try WebPushCrypto.encrypt(Data("hi".utf8), userAgentPublicKey: point, authSecret: auth + [0])
        }
        #expect(throws: WebPushCrypto.Failure.invalidSalt) {
            try WebPushCrypto.encrypt(Data("hi".utf8), userAgentPublicKey: point, authSecret: auth,
                                      applicationServerKey: P256.KeyAgreement.PrivateKey(), salt: Data(count: 8))
        }
    }

    /// Records built by hand: padding after 0x02 goes, a record without a final 0x02 throws.
    @Test("Zero padding after the delimiter is stripped; a record without 0x02 is refused")
    func paddingAndDelimiter() throws {
        let (userAgent, auth) = Self.freshUserAgent()
        /// A message whose single record is exactly `record`.
        func body(_ record: [UInt8]) throws -> Data {
            try WebPushCrypto.seal(record: Data(record), userAgentPublicKey: userAgent.publicKey.x963Representation, authSecret: auth,
                                   applicationServerKey: P256.KeyAgreement.PrivateKey(), salt: Data(count: 16))
        }
        let padded = try body(Array("hi".utf8) + [0x02, 0, 0, 0])
        #expect(try WebPushCrypto.decrypt(padded, userAgentPrivateKey: userAgent, authSecret: auth) == Data("hi".utf8))
        let zeroEnding = try body([0x68, 0x00, 0x02, 0x00])
        #expect(try WebPushCrypto.decrypt(zeroEnding, userAgentPrivateKey: userAgent, authSecret: auth) == Data([0x68, 0x00]))
        for record: [UInt8] in [Array("hi".utf8), Array("hi".utf8) + [0x01], [0, 0, 0]] {
            #expect(throws: WebPushCrypto.Failure.missingDelimiter, "\(record)") {
                try WebPushCrypto.decrypt(body(record), userAgentPrivateKey: userAgent, authSecret: auth)
            }
        }
    }

    // MARK: VAPID

    /// The header has the JWT and key in the agreed shape and verifies with the key it names.
    @Test("VAPID: a signed header verifies and gives back the key and claims")
    func vapidRoundTrip() throws {
        let key = P256.Signing.PrivateKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000.75)
        let header = try WebPushCrypto.vapidAuthorization(endpoint: #require(URL(string: "https://fcm.googleapis.com/fcm/send/abc:def")),
                                                          subject: "mailto:admin@example.com", key: key,
                                                          expiresAt: now.addingTimeInterval(12 * 3600))
        #expect(header.hasPrefix("vapid t=eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9."))
        #expect(header.hasSuffix(", k=" + WebPushCrypto.base64URLEncode(key.publicKey.x963Representation)))
        let (publicKey, claims) = try WebPushCrypto.verifyVAPID(header, audience: "https://fcm.googleapis.com", now: now)
        #expect(publicKey == key.publicKey.x963Representation)
        #expect(claims == .init(aud: "https://fcm.googleapis.com", exp: 1_800_043_200, sub: "mailto:admin@example.com"))
        let token = try #require(header.split(separator: " ").dropFirst().first).dropFirst(2).dropLast()
        let parts = token.split(separator: ".")
        #expect(try String(decoding: Self.bytes(String(parts[0])), as: UTF8.self) == #"{"typ":"JWT","alg":"ES256"}"#)
        #expect(try String(decoding: Self.bytes(String(parts[1])), as: UTF8.self)
            == #"{"aud":"https://fcm.googleapis.com","exp":1800043200,"sub":"mailto:admin@example.com"}"#)
        #expect(try Self.bytes(String(parts[2])).count == 64)
    }

    /// Our signing input equals the RFC's for its claims, and the RFC's own signature verifies here.
    @Test("VAPID: the RFC 8292 example's claims encode alike, and its token verifies")
    func vapidRFCExample() throws {
        let header = try WebPushCrypto.vapidAuthorization(
            endpoint: #require(URL(string: "https://push.example.net/p/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV")),
            subject: "mailto:push@example.com", key: P256.Signing.PrivateKey(),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(RFC8292.expiry)))
        let signingInput = RFC8292.token.split(separator: ".").prefix(2).joined(separator: ".")
        #expect(header.hasPrefix("vapid t=" + signingInput + "."))
        let (publicKey, claims) = try WebPushCrypto.verifyVAPID("vapid t=\(RFC8292.token), k=\(RFC8292.key)",
                                                                audience: "https://push.example.net",
                                                                now: Date(timeIntervalSince1970: TimeInterval(RFC8292.expiry - 3600)))
        #expect(try publicKey == Self.bytes(RFC8292.key))
        #expect(claims == .init(aud: "https://push.example.net", exp: RFC8292.expiry, sub: "mailto:push@example.com"))
    }

    /// Each check of the verifier fails on its own, and lenient spelling of the header still parses.
    @Test("VAPID: another audience, an expired or far expiry, a tampered token or another k fail")
    func vapidFailures() throws {
        let key = P256.Signing.PrivateKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let endpoint = try #require(URL(string: "https://updates.push.services.mozilla.com/wpush/v2/xyz"))
        let audience = "https://updates.push.services.mozilla.com"
        /// A header for the test endpoint that expires `seconds` after `now`.
        func sign(expiresIn seconds: TimeInterval = 3600) throws -> String {
            try WebPushCrypto.vapidAuthorization(endpoint: endpoint, subject: "https://bullpen.example", key: key,
                                                 expiresAt: now.addingTimeInterval(seconds))
        }
        let header = try sign()
        #expect(throws: WebPushCrypto.Failure.wrongAudience(expected: "https://fcm.googleapis.com", actual: audience)) {
            try WebPushCrypto.verifyVAPID(header, audience: "https://fcm.googleapis.com", now: now)
        }
        #expect(throws: WebPushCrypto.Failure.expired) {
            try WebPushCrypto.verifyVAPID(header, audience: audience, now: now.addingTimeInterval(3600))
        }
        #expect(throws: WebPushCrypto.Failure.expiryTooFar) {
            try WebPushCrypto.verifyVAPID(sign(expiresIn: 24 * 3600 + 1), audience: audience, now: now)
        }
        #expect(try WebPushCrypto.verifyVAPID(sign(expiresIn: 24 * 3600), audience: audience, now: now).claims.aud == audience)

        // The token's parts, to alter one at a time.
        let t = try #require(header.split(separator: ",").first).dropFirst("vapid t=".count)
        let k = try #require(header.split(separator: "=").last)
        let parts = t.split(separator: ".").map(String.init)
        var signature = try Self.bytes(parts[2])
        signature[10] ^= 0x01
        let forgedClaims = WebPushCrypto.base64URLEncode(Data(#"{"aud":"\#(audience)","exp":1800003600,"sub":"mailto:x@y.z"}"#.utf8))
        let otherK = WebPushCrypto.base64URLEncode(P256.Signing.PrivateKey().publicKey.x963Representation)
        for forged in ["vapid t=\(parts[0]).\(parts[1]).\(WebPushCrypto.base64URLEncode(signature)), k=\(k)",
                       "vapid t=\(parts[0]).\(forgedClaims).\(parts[2]), k=\(k)",
                       "vapid t=\(t), k=\(otherK)"] {
            #expect(throws: WebPushCrypto.Failure.badSignature) { try WebPushCrypto.verifyVAPID(forged, audience: audience, now: now) }
        }
        for malformed in ["Bearer \(t)", "vapid t=\(t)", "vapid k=\(k)", "vapid t=\(parts[0]).\(parts[1]), k=\(k)",
                          "vapid t=\(t), k=\(k.dropLast(2))", "vapid t=\(t), t=\(t), k=\(k)", ""] {
            #expect(throws: WebPushCrypto.Failure.self, "\(malformed)") { try WebPushCrypto.verifyVAPID(malformed, audience: audience, now: now) }
        }
        #expect(try WebPushCrypto.verifyVAPID("  VAPID t=\"\(t)\",k=\(k) ", audience: audience, now: now).publicKey
            == key.publicKey.x963Representation)
    }

    /// Origins drop default ports and paths and lowercase; non-http endpoints and bare subjects are refused.
    @Test("VAPID: the audience is the endpoint's origin; bad endpoints and subjects are refused")
    func vapidAudience() throws {
        let cases = ["https://push.example.net/p/x": "https://push.example.net",
                     "https://push.example.net:443/p/x": "https://push.example.net",
                     "https://push.example.net:8443/p/x?q=1": "https://push.example.net:8443",
                     "HTTPS://Push.Example.NET/p": "https://push.example.net",
                     "http://127.0.0.1:8080/push": "http://127.0.0.1:8080",
                     "http://[::1]:8080/push": "http://[::1]:8080"]
        for (endpoint, origin) in cases {
            #expect(try WebPushCrypto.audience(of: #require(URL(string: endpoint))) == origin)
        }
        for endpoint in ["ftp://push.example.net/x", "file:///tmp/x", "/relative"] {
            #expect(throws: WebPushCrypto.Failure.invalidEndpoint) { try WebPushCrypto.audience(of: #require(URL(string: endpoint))) }
        }
        #expect(throws: WebPushCrypto.Failure.invalidSubject) {
            try WebPushCrypto.vapidAuthorization(endpoint: #require(URL(string: "https://push.example.net/x")), subject: "admin@example.com",
                                                 key: P256.Signing.PrivateKey(), expiresAt: Date())
        }
    }

    // MARK: The key file

    /// A missing key is made as PEM with mode 0600, no temporary file is left, and the next load reads it.
    @Test("The VAPID key file is made with mode 0600 in a new directory and read back")
    func keyFileCreated() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("data/vapid-key")
        let key = try WebPushCrypto.loadOrCreateVAPIDKey(at: url)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["vapid-key"])
        let again = try WebPushCrypto.loadOrCreateVAPIDKey(at: url)
        #expect(again.rawRepresentation == key.rawRepresentation)
    }

    /// Eight concurrent first loads agree on one key.
    @Test("Servers starting at once all get the one key written")
    func keyFileRace() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("vapid-key")
        let keys = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<8 { group.addTask { try WebPushCrypto.loadOrCreateVAPIDKey(at: url).rawRepresentation } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(keys).count == 1)
        #expect(try WebPushCrypto.loadOrCreateVAPIDKey(at: url).rawRepresentation == keys.first)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["vapid-key"])
    }

    /// The bare 32-byte scalar is accepted as well as PEM.
    @Test("A raw 32-byte key file is read")
    func rawKeyFile() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = P256.Signing.PrivateKey(), url = directory.appendingPathComponent("vapid-key")
        try key.rawRepresentation.write(to: url)
        #expect(try WebPushCrypto.loadOrCreateVAPIDKey(at: url).rawRepresentation == key.rawRepresentation)
    }

    /// Text, zero and out-of-range scalars, an empty file and half a PEM all throw, and the file is untouched.
    @Test("A corrupt key file is refused and left as it is")
    func corruptKeyFile() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("vapid-key")
        let pem = P256.Signing.PrivateKey().pemRepresentation
        for contents in [Data("not a key\n".utf8), Data(count: 32), Data(repeating: 0xFF, count: 32), Data(count: 0),
                         Data(pem.prefix(pem.count / 2).utf8), Data(P256.Signing.PrivateKey().rawRepresentation.prefix(31))] {
            try contents.write(to: url)
            #expect(throws: WebPushCrypto.Failure.corruptKeyFile(url.path)) { try WebPushCrypto.loadOrCreateVAPIDKey(at: url) }
            #expect(try Data(contentsOf: url) == contents)
        }
    }
}
