import BullpenCore
import Foundation
import Testing

@Suite("Identifiers")
struct IdentifierTests {
    /// Version 7 (RFC 9562): the version and variant bits are right, the first 48 bits are the
    /// millisecond it was made, ids made later sort later (also as the text the store keeps),
    /// and the random part differs.
    @Test func timeOrderedIDsAreVersionSevenAndSortByTime() async throws {
        let source = TimeOrderedIDSource()
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let first = source.makeUUID()
        try await Task.sleep(for: .milliseconds(3))
        let second = source.makeUUID()
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        for id in [first, second] {
            let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 7)
            #expect(bytes[8] >> 6 == 0b10)
            let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            #expect((before...after).contains(milliseconds))
        }
        #expect(first < second)
        #expect(first.uuidString < second.uuidString)
        let many = Set((0..<10_000).map { _ in source.makeUUID() })
        #expect(many.count == 10_000)
    }
}
