import BullpenAPI
import Foundation

/// Activities as a CSV file, one row each, with a header.
struct ActivityCSV {
    static let header = "sequence,period,created_at,type,symbol,quantity,price,amount,commission,realized_pnl,order_id\n"
    private let timestamps = ISO8601DateFormatter()
    private(set) var text = ActivityCSV.header

    mutating func append(_ activity: ActivityDTO) {
        let fields: [String] = [
            String(activity.sequence), String(activity.period), timestamps.string(from: activity.createdAt),
            activity.type, activity.symbol ?? "", String(activity.quantity), activity.price ?? "", activity.amount,
            activity.commission, activity.realizedPnl ?? "", activity.orderId ?? "",
        ]
        text += fields.joined(separator: ",") + "\n"
    }
}
