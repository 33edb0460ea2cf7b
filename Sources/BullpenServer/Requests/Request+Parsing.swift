import BullpenAPI
import BullpenCore
import BullpenStore
import Crypto
import Foundation
import NIOFoundationEssentialsCompat
import Vapor

/// The request-parsing kit: bodies, paging, path ids and dates, read one way everywhere.
extension Request {
    /// Decodes the JSON body as `T`, refusing fields `T` does not declare (so that nobody can slip
    /// `cash` into a rename) and naming the field at fault in the error.
    /// The body must say it is JSON (`Content-Type: application/json`), give each field once and
    /// write its numbers as whole numbers (see ``StrictJSON``).
    func decodeJSON<T: RequestBody>(_ type: T.Type) throws -> T {
        guard let buffer = body.data, buffer.readableBytes > 0 else {
            throw APIError(.invalidJSON, "The request needs a JSON body.")
        }
        guard let contentType = headers.contentType, contentType.type == "application", contentType.subType == "json" else {
            throw APIError(.unsupportedMediaType, "Send the body as JSON, with Content-Type: application/json.")
        }
        let data = Data(buffer: buffer)
        do {
            try StrictJSON.check(buffer.readableBytesView, fractions: T.acceptsFractionalNumbers)
        } catch {
            throw APIError.validation(error.message)
        }
        do {
            return try APIContract.makeDecoder().decode(StrictBody<T>.self, from: data).value
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // Foundation's decoder says "not valid JSON" also of a valid number that does not fit
            // its field (1.5 for a quantity): only on this error path is the body parsed again to tell.
            guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
                throw APIError(.invalidJSON, "The body is not valid JSON.")
            }
            throw APIError.validation("A value in the body is not of the kind its field takes (a whole number where one is asked, within range).")
        }
    }

    /// `?limit=`: a whole number in `range`, `fallback` when absent.
    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = query[String.self, at: name] else { return fallback }
        // Digits with an optional minus, nothing else (Int would take "+5" too).
        guard text.range(of: "^-?[0-9]+$", options: .regularExpression) != nil, let number = Int(text), range.contains(number) else {
            throw APIError.validation("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    /// The page size of a paged list (`?limit=`, 1 to 500, 50 by default).
    func pageLimit() throws -> Int { try integer("limit", default: 50, range: 1...500) }

    /// The opaque `?cursor=` of a paged list, as the client got it.
    var pageCursor: String? { query[String.self, at: "cursor"].flatMap { $0.isEmpty ? nil : $0 } }

    /// `?name=YYYY-MM-DD`.
    func date(_ name: String) throws -> SessionDate? {
        guard let text = query[String.self, at: name] else { return nil }
        guard let date = SessionDate(iso: text) else {
            throw APIError(.invalidDates, "\(name) must be a date like 2024-03-28.")
        }
        return date
    }

    /// Whether the request came through the ``ConnectionGuard`` (on its private Unix socket),
    /// which has already decided who the client is.
    private var fromConnectionGuard: Bool {
        if case .unixDomainSocket = remoteAddress { return true }
        return false
    }

    /// The client's address: the peer's, or, when the peer is a trusted reverse proxy, the last
    /// address its `X-Forwarded-For` adds (the one the proxy saw; earlier ones the client wrote).
    var clientAddress: String {
        if fromConnectionGuard { return headers.first(name: "X-Forwarded-For") ?? "unknown" }
        let peer = remoteAddress?.ipAddress ?? "unknown"
        guard bullpen.configuration.trustedProxies.contains(peer),
              let forwarded = headers[canonicalForm: "X-Forwarded-For"].last.map(String.init), !forwarded.isEmpty
        else { return peer }
        return forwarded
    }

    /// Whether the client's connection was TLS: the trusted proxy in front says so in
    /// `X-Forwarded-Proto` (Bullpen itself serves plain HTTP behind it).
    var cameOverTLS: Bool {
        if fromConnectionGuard { return headers.first(name: "X-Forwarded-Proto")?.lowercased() == "https" }
        guard bullpen.configuration.trustedProxies.contains(remoteAddress?.ipAddress ?? "") else { return false }
        return headers[canonicalForm: "X-Forwarded-Proto"].last?.lowercased() == "https"
    }

    /// `live`, or a replay at `?asOf=YYYY-MM-DD`.
    func marketClock() throws -> PortfolioClock {
        guard let date = try date("asOf") else { return .live }
        return .replay(date.date)
    }

    /// The `{id}` of a portfolio route; a malformed id is a portfolio that does not exist.
    func portfolioID() throws -> PortfolioID {
        guard let id = parameters.get("id").flatMap(PortfolioID.init) else { throw APIError.notFound("Portfolio") }
        return id
    }

    /// The `{symbol}` of a route, well-formed (whether it is listed is the caller's question).
    func symbolParameter() throws -> Symbol {
        let text = parameters.get("symbol") ?? ""
        guard let symbol = Symbol(text) else { throw APIError.unknownSymbol(text) }
        return symbol
    }
}

/// Names people give things (portfolios, watchlists): at most 50 characters as sent, one line,
/// kept without the spaces around them, which must leave at least one.
enum Names {
    static let length = 1...50

    static func validate(_ raw: String, of what: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        // Lengths count code points as sent, as the contract's maxLength does.
        // No control characters anywhere in what was sent (the contract's pattern reads the raw
        // value; trimming would let a trailing U+0085 through): a name is shown, and SQLite reads
        // text back only up to a NUL.
        guard raw.unicodeScalars.count <= length.upperBound, !name.isEmpty,
              !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError(.invalidName, "\(what) names are 1 to 50 characters on one line, without control characters.")
        }
        return name
    }
}

extension Digest {
    /// Lowercase hexadecimal, two digits a byte.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// A request body read in one pass: the object's field names are checked against the ones `T`
/// declares before `T` decodes itself from the same parsed value.
private struct StrictBody<T: RequestBody>: Decodable {
    let value: T

    init(from decoder: any Decoder) throws {
        let fields: KeyedDecodingContainer<StrictFields.AnyField>
        do {
            fields = try decoder.container(keyedBy: StrictFields.AnyField.self)
        } catch DecodingError.typeMismatch, DecodingError.valueNotFound {
            throw APIError.validation("The body must be a JSON object.")
        }
        if let message = StrictFields.unknownField(T.self, in: fields) { throw APIError.validation(message) }
        value = try T(from: decoder)
    }
}
