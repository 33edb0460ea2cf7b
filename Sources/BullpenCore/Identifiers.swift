import Foundation

/// A typed identifier: `Portfolio.ID` and `User.ID` cannot be mixed up although both wrap a UUID.
/// On the wire it is an opaque lowercase string.
public struct TypedID<Entity>: Hashable, Sendable, StringCodable {
    public let uuid: UUID

    public init(_ uuid: UUID) { self.uuid = uuid }

    /// Parses the wire form; `nil` for anything that is not one of our ids.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    public var description: String { uuid.uuidString.lowercased() }
}

/// A value whose JSON form is a single string: its `description`, parsed back by `init?(_:)`.
public protocol StringCodable: Codable, CustomStringConvertible {
    init?(_ text: String)
}

extension StringCodable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a valid \(Self.self)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

public enum UserTag {}
public enum PortfolioTag {}
public enum OrderTag {}
public enum FillTag {}
public enum SessionTag {}
public enum JournalEntryTag {}
public enum LeagueTag {}

public typealias UserID = TypedID<UserTag>
public typealias PortfolioID = TypedID<PortfolioTag>
public typealias LeagueID = TypedID<LeagueTag>
public typealias OrderID = TypedID<OrderTag>
public typealias FillID = TypedID<FillTag>
public typealias SessionID = TypedID<SessionTag>
public typealias JournalEntryID = TypedID<JournalEntryTag>
