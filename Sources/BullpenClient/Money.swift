import Foundation

/// Amounts and prices travel as decimal strings ("1234.50"); in Swift they are `Decimal`, never `Double`.
enum Money {
    static let posix = Locale(identifier: "en_US_POSIX")

    static func parse(_ text: String, _ field: String) throws -> Decimal {
        guard let value = Decimal(string: text, locale: posix), text.contains(where: \.isNumber) else {
            throw BullpenError.invalidResponse("\(field) is not a decimal: '\(text)'")
        }
        return value
    }

    static func parse(_ text: String?, _ field: String) throws -> Decimal? {
        guard let text else { return nil }
        return try parse(text, field) as Decimal
    }

    /// The API's spelling: at least two decimal places ("12.50", "-3.00", "101.2345").
    static func format(_ value: Decimal) -> String {
        var text = "\(value)"
        if let dot = text.firstIndex(of: ".") {
            let places = text.distance(from: dot, to: text.endIndex) - 1
            if places < 2 { text += String(repeating: "0", count: 2 - places) }
        } else {
            text += ".00"
        }
        return text
    }

    /// A price or an amount for a request: plain digits, a dot, no exponent.
    static func request(_ value: Decimal) -> String { "\(value)" }
}

/// A `Decimal` that encodes as the API writes it: a string with at least two decimal places.
@propertyWrapper
public struct DecimalString: Sendable, Hashable, Encodable {
    /// The amount.
    public var wrappedValue: Decimal
    /// Wraps an amount.
    public init(wrappedValue: Decimal) { self.wrappedValue = wrappedValue }
    /// Encodes the amount as a decimal string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Money.format(wrappedValue))
    }
}

/// An optional `Decimal` that encodes as the API writes it, and is left out when nil.
@propertyWrapper
public struct OptionalDecimalString: Sendable, Hashable, Encodable {
    /// The amount, if any.
    public var wrappedValue: Decimal?
    /// Wraps an optional amount.
    public init(wrappedValue: Decimal?) { self.wrappedValue = wrappedValue }
    /// Encodes the amount as a decimal string, or null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(Money.format(wrappedValue)) } else { try container.encodeNil() }
    }
}

extension KeyedEncodingContainer {
    /// Leaves a nil amount out, as the API does.
    public mutating func encode(_ value: OptionalDecimalString, forKey key: Key) throws {
        if let amount = value.wrappedValue { try encode(Money.format(amount), forKey: key) }
    }
}
