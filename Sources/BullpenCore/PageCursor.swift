import Foundation

/// Opaque page cursors: a position (an offset, or the last sequence number seen) that clients
/// pass back as they got it. One encoding for every paged list of the API.
public enum PageCursor {
    public static func encode(_ position: Int) -> String { wrap("v1:\(position)") }

    /// The position, or nil when `cursor` is not one of ours.
    public static func decode(_ cursor: String) -> Int? {
        guard let plain = unwrap(cursor), plain.hasPrefix("v1:"), let value = Int(plain.dropFirst(3)), value >= 0 else { return nil }
        return value
    }

    /// Any cursor's text as the client carries it: base64url without padding.
    public static func wrap(_ plain: String) -> String {
        Data(plain.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The text a cursor carries, or nil when it is not base64url of UTF-8.
    public static func unwrap(_ cursor: String) -> String? {
        var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
