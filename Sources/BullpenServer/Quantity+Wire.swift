import BullpenCore

extension Quantity {
    /// A quantity as the native API writes it: whole shares or contracts, the only quantities its
    /// orders can make (no rule that allows fractions can be set through it yet).
    var wire: Int64 { wholePart }
}

extension OrderRoutes {
    /// The wire's whole quantity as a ``Quantity``; one beyond what a quantity holds (±92 billion)
    /// becomes the largest, which every rule refuses as out of range, as it would the number sent.
    static func wholeQuantity(_ value: Int64) -> Quantity {
        let limit = Int64.max / Quantity.unitsPerWhole
        return Quantity(whole: Swift.min(Swift.max(value, -limit), limit))
    }
}
