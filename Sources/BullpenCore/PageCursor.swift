import Foundation

/// Opaque page cursors: a position (an offset, or the last sequence number seen) that clients
/// pass back as they got it. One encoding for every paged list of the API.
public enum PageCursor {
    public static func encode(_ position: Int) -> String {
        Data("v1:\(position)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The position, or nil when `cursor` is not one of ours.
    public static func decode(_ cursor: String) -> Int? {
        var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), let plain = String(data: data, encoding: .utf8),
              plain.hasPrefix("v1:"), let value = Int(plain.dropFirst(3)), value >= 0
        else { return nil }
        return value
    }
}
