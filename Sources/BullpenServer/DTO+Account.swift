import BullpenAPI
import BullpenCore
import Foundation

// Conversions from the core's account values to the wire types.

extension UserDTO {
    init(_ user: UserRecord) {
        self.init(id: user.id.description, username: user.username, createdAt: user.createdAt)
    }
}

extension WatchlistDTO {
    init(_ list: WatchlistRecord) {
        self.init(id: list.id.uuidString.lowercased(), name: list.name, symbols: list.symbols.map(\.rawValue), createdAt: list.createdAt)
    }
}
