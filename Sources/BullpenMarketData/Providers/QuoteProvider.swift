import AsyncHTTPClient
import BullpenCore
import Foundation
import NIOCore
import NIOHTTP1

/// Why a provider could not answer.
public enum ProviderError: Error, Sendable, Hashable {
    /// The provider's quota is used up; try again after the given seconds if known.
    case rateLimited(retryAfter: Int?)
    /// The API key is missing or refused.
    case unauthorized
    /// The provider answered with an error status or could not be reached.
    case unavailable(String)
    /// The answer could not be read.
    case malformed(String)
}

/// An online market data provider: real-time (or delayed) quotes and daily history over HTTP.
public protocol QuoteProvider: Sendable {
    /// `stooq`, `finnhub`.
    var name: String { get }
    /// Whether its quotes are delayed (Stooq's are; Finnhub's are real time).
    var delayed: Bool { get }
    /// How many symbols one quote request may carry.
    var quoteBatchSize: Int { get }
    /// Requests allowed per minute on the free plan.
    var requestsPerMinute: Int { get }
    /// Quotes for `symbols`; symbols the provider does not know are left out.
    func quotes(_ symbols: [Symbol]) async throws -> [Symbol: Quote]
    /// Daily bars between two dates, ascending; empty for unknown symbols.
    func dailyBars(_ symbol: Symbol, from start: SessionDate, through end: SessionDate) async throws -> [DailyBar]
    /// The company's profile (name, exchange, logo), where the provider has one.
    func profile(_ symbol: Symbol) async throws -> AssetInfo?
}

extension QuoteProvider {
    public func profile(_ symbol: Symbol) async throws -> AssetInfo? { nil }
}

/// The HTTP plumbing shared by the providers: GET with a timeout, status checks, body limits.
struct ProviderHTTP: Sendable {
    let client: HTTPClient
    let baseURL: String
    let timeout: TimeAmount

    /// GETs `path` (with its query) and returns the body; maps 401/403 and 429 to provider errors.
    func get(_ path: String) async throws -> Data {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: "Bullpen/1.0")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            throw ProviderError.unavailable("request failed: \(error)")
        }
        let body = try await response.body.collect(upTo: 32 << 20)
        switch response.status.code {
        case 200..<300: return Data(body.readableBytesView)
        case 401, 403: throw ProviderError.unauthorized
        case 429: throw ProviderError.rateLimited(retryAfter: response.headers.first(name: "Retry-After").flatMap(Int.init))
        default: throw ProviderError.unavailable("HTTP \(response.status.code)")
        }
    }

    /// Percent-encodes a query value.
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}
