import BullpenAPI
import Foundation
import Vapor

/// Activities as a CSV file, one row each, with a header.
struct ActivityCSV {
    static let header = "sequence,period,created_at,type,symbol,quantity,price,amount,commission,realized_pnl,order_id\n"
    private let timestamps = ISO8601DateFormatter()
    private(set) var text: String

    /// `leading` names columns put before the activity's own (a league's export: `username`).
    init(leading: [String] = []) {
        text = leading.map { $0 + "," }.joined() + Self.header
    }

    /// Appends one row; `leading` holds the values of the leading columns.
    mutating func append(_ activity: ActivityDTO, leading: [String] = []) {
        let fields: [String] = leading.map(CSVField.escape) + [
            String(activity.sequence), String(activity.period), timestamps.string(from: activity.createdAt),
            activity.type, activity.symbol ?? "", activity.quantity.text, activity.price ?? "", activity.amount,
            activity.commission, activity.realizedPnl ?? "", activity.orderId ?? "",
        ]
        text += fields.joined(separator: ",") + "\n"
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
enum CSVField {
    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// A CSV file to download as `filename`.
func csvResponse(_ text: String, filename: String) -> Response {
    var headers = HTTPHeaders()
    headers.replaceOrAdd(name: .contentType, value: "text/csv; charset=utf-8")
    headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"\(filename)\"")
    return Response(status: .ok, headers: headers, body: .init(string: text))
}
