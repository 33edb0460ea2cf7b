import BullpenCore
import Foundation
import Synchronization

/// The columns and values of a flat row, for the ledger's batch writers: keys in snake case (the
/// columns Fluent made), each value tagged with its kind so that each writer stores it as Fluent
/// stores it there (SQLite: UUIDs as upper-case text, dates as seconds since 1970, booleans as 0
/// or 1; PostgreSQL: `uuid`, `timestamptz` to the microsecond, `boolean`).
enum RowValues {
    enum Value: Equatable {
        case null, integer(Int64), real(Double), text(String), bool(Bool), uuid(UUID), date(Date)
    }

    static func encode(_ row: some Encodable) throws -> [(column: String, value: Value)] {
        let encoder = RowEncoder()
        try row.encode(to: encoder)
        return encoder.values
    }

    /// camelCase to snake_case, remembered (a handful of column names).
    static func column(_ key: String) -> String {
        if let known = columns.withLock({ $0[key] }) { return known }
        var snake = ""
        for character in key {
            if character.isUppercase {
                if !snake.isEmpty { snake.append("_") }
                snake.append(contentsOf: character.lowercased())
            } else {
                snake.append(character)
            }
        }
        columns.withLock { $0[key] = snake }
        return snake
    }

    private static let columns = Mutex<[String: String]>([:])

    // MARK: JSON for PostgreSQL

    /// `rows` as a JSON array of objects keyed by column, in the text forms PostgreSQL reads
    /// into the columns' types (`jsonb_populate_recordset`): dates as UTC timestamps to the
    /// microsecond.
    static func json(_ rows: [some Encodable]) throws -> String {
        var json = "["
        json.reserveCapacity(64 + rows.count * 320)
        for (index, row) in rows.enumerated() {
            if index > 0 { json += "," }
            json += "{"
            for (offset, (column, value)) in try encode(row).enumerated() {
                if offset > 0 { json += "," }
                json += "\"" + column + "\":"
                try append(value, to: &json)
            }
            json += "}"
        }
        return json + "]"
    }

    private static func append(_ value: Value, to json: inout String) throws {
        switch value {
        case .null: json += "null"
        case .integer(let number): json += String(number)
        case .real(let number):
            guard number.isFinite else { throw EncodingError.invalidValue(number, .init(codingPath: [], debugDescription: "not a finite number")) }
            json += String(number)
        case .bool(let flag): json += flag ? "true" : "false"
        case .uuid(let uuid): json += "\"" + uuid.uuidString + "\""
        case .date(let date): json += "\"" + timestamp(date) + "\""
        case .text(let text): appendQuoted(text, to: &json)
        }
    }

    private static func appendQuoted(_ text: String, to json: inout String) {
        json += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }

    /// `date` as `YYYY-MM-DD HH:MM:SS.ffffff+00`, to the nearest microsecond (PostgresNIO
    /// truncates, which stores a whole millisecond held a hair below its value as the microsecond
    /// before it).
    static func timestamp(_ date: Date) -> String {
        let sinceY2K = Int64((date.timeIntervalSince(Date(timeIntervalSince1970: 946_684_800)) * 1_000_000).rounded())
        let micros = sinceY2K + 946_684_800 * 1_000_000
        let perDay: Int64 = 86_400_000_000
        let days = micros >= 0 ? micros / perDay : (micros - perDay + 1) / perDay
        var rest = micros - days * perDay
        let (year, month, day) = SessionDate(day: Int32(days)).components
        let hour = rest / 3_600_000_000; rest -= hour * 3_600_000_000
        let minute = rest / 60_000_000; rest -= minute * 60_000_000
        let second = rest / 1_000_000; rest -= second * 1_000_000
        func padded(_ number: Int64, _ width: Int) -> String {
            let digits = String(number)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        return padded(Int64(year), 4) + "-" + padded(Int64(month), 2) + "-" + padded(Int64(day), 2) + " " + padded(hour, 2) + ":"
            + padded(minute, 2) + ":" + padded(second, 2) + "." + padded(rest, 6) + "+00"
    }

    // MARK: The encoder

    private final class RowEncoder: Encoder {
        var values: [(column: String, value: Value)] = []
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Container<Key>(encoder: self))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("rows are flat") }
        func singleValueContainer() -> any SingleValueEncodingContainer { fatalError("rows are flat") }
    }

    private struct Unsupported: Error {
        var key: String
    }

    private struct Container<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: RowEncoder
        var codingPath: [any CodingKey] { [] }

        private func put(_ value: Value, _ key: Key) {
            encoder.values.append((RowValues.column(key.stringValue), value))
        }

        mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { put(.text(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { put(.real(value), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { put(.integer(value), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { put(.integer(Int64(value)), key) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            switch value {
            case let uuid as UUID: put(.uuid(uuid), key)
            case let date as Date: put(.date(date), key)
            default: throw Unsupported(key: key.stringValue)
            }
        }

        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { put(.null, key) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                           forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            fatalError("rows are flat")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { fatalError("rows are flat") }
        mutating func superEncoder() -> any Encoder { fatalError("rows are flat") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { fatalError("rows are flat") }
    }
}
