import BullpenCore

extension PageCursor {
    /// The position of `cursor`, or ``StoreError/invalidCursor``.
    static func position(_ cursor: String) throws -> Int {
        guard let position = decode(cursor) else { throw StoreError.invalidCursor }
        return position
    }
}
