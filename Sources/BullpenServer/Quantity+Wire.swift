import BullpenAPI
import BullpenCore

extension Quantity {
    /// A quantity as the API writes it: an exact JSON number (`5`, `0.5`, `0.00012345`).
    var wire: ExactNumber { ExactNumber(decimalString) }
}

extension OrderRoutes {
    /// A quantity as a request sends it. Beyond what a quantity holds (±92 billion) it becomes the
    /// largest, which every rule refuses as out of range; more than eight places is refused here.
    static func quantity(_ number: ExactNumber, field: String = "quantity") throws -> Quantity {
        if let quantity = Quantity(parsing: number.text) { return quantity }
        let parts = number.text.drop { $0 == "-" }.split(separator: ".", omittingEmptySubsequences: false)
        let decimal = parts.count <= 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
        if decimal, parts.count == 1 || parts[1].count <= Quantity.scale {   // a plain number, too large
            return number.text.hasPrefix("-") ? -Quantity.max : .max
        }
        throw APIError.validation("'\(field)' must be a number with at most \(Quantity.scale) decimal places, like 5 or 0.25.")
    }
}
