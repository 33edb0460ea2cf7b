import BullpenAPI
import BullpenCore
import Foundation
import Vapor

/// Query parameters as Alpaca's clients send them: RFC 3339 times (with an offset or `Z`, with or
/// without fractions) or dates, `True`/`False`, comma-separated symbols.
enum AlpacaQuery {
    /// `?name=` as an instant: an RFC 3339 time, or a date (its New York midnight).
    static func instant(_ req: Request, _ name: String) throws -> Date? {
        guard let text = req.query[String.self, at: name] else { return nil }
        guard let instant = parseInstant(text) else {
            throw APIError.validation("\(name) must be a time like 2024-01-02T15:04:05Z or a date like 2024-01-02.")
        }
        return instant
    }

    static let withFractions = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    static let withoutFractions = Date.ISO8601FormatStyle()

    static func parseInstant(_ text: String) -> Date? {
        if let date = SessionDate(iso: text), text.count == 10 { return TradingCalendar.instant(date, 0, 0) }
        guard text.count <= 40 else { return nil }
        return (try? withFractions.parse(text)) ?? (try? withoutFractions.parse(text))
    }

    /// `?name=` as a session date: a date, or the New York date of a time.
    static func day(_ req: Request, _ name: String) throws -> SessionDate? {
        guard let text = req.query[String.self, at: name] else { return nil }
        if let date = SessionDate(iso: text), text.count == 10 { return date }
        guard let instant = parseInstant(text) else { throw APIError(.invalidDates, "\(name) must be a date like 2024-01-02.") }
        return TradingCalendar.sessionDate(at: instant)
    }

    /// `asc` or `desc` (nil when absent).
    static func direction(_ req: Request, _ name: String) throws -> String? {
        guard let text = req.query[String.self, at: name] else { return nil }
        guard text == "asc" || text == "desc" else { throw APIError.validation("\(name) must be asc or desc.") }
        return text
    }

    /// `true` or `false` in any case (Python's clients send `True`).
    static func flag(_ req: Request, _ name: String) throws -> Bool? {
        guard let text = req.query[String.self, at: name] else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw APIError.validation("\(name) must be true or false.")
        }
    }

    /// `?symbols=A,B` as symbols in the order given, without repeats; nil when absent and not required.
    static func symbols(_ req: Request, required: Bool, limit: Int = 1_000) throws -> [Symbol]? {
        guard let text = req.query[String.self, at: "symbols"], !text.isEmpty else {
            if required { throw APIError.validation("symbols is required: ?symbols=AAPL,MSFT") }
            return nil
        }
        var result: [Symbol] = []
        for item in text.split(separator: ",") {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            guard let symbol = AlpacaMapping.symbol(trimmed) else { throw APIError.validation("'\(trimmed)' is not a symbol.") }
            if !result.contains(symbol) { result.append(symbol) }
        }
        guard result.count <= limit else { throw APIError.validation("Ask for at most \(limit) symbols at a time.") }
        return result
    }

    /// Alpaca's history period: a number and D, W, M or A (years), like `1M` or `1A`.
    static func period(_ text: String) throws -> DateComponents {
        guard let unit = text.last, let count = Int(text.dropLast()), (1...100).contains(count) else {
            throw APIError.validation("period must be a number and D, W, M or A, like 1M or 1A.")
        }
        switch unit {
        case "D": return DateComponents(day: count)
        case "W": return DateComponents(weekOfYear: count)
        case "M": return DateComponents(month: count)
        case "A": return DateComponents(year: count)
        default: throw APIError.validation("period must be a number and D, W, M or A, like 1M or 1A.")
        }
    }
}
