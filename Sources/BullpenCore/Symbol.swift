/// A ticker symbol, normalised to upper case: `AAPL`, `BRK-B`, `BF.B`; or an option contract's,
/// its OCC symbol without the root's padding and with the underlying's own spelling
/// (`AAPL260320C00250000`, `BRK-B260320C00500000`): positions, fills and the journal hold both alike.
public struct Symbol: Hashable, Comparable, Sendable, StringCodable {
    public let rawValue: String

    /// The longest stock symbol; anything longer is an option contract's.
    public static let maxStockLength = 12

    /// Accepts 1-12 characters of letters, digits, `.` and `-`, starting with a letter or digit,
    /// or an option contract's symbol (OCC, padded or not, see ``OptionContract/init(occ:)``);
    /// lower case is folded to upper case.
    public init?(_ text: String) {
        let upper = text.uppercased()
        if Symbol.isStock(upper) {
            self.rawValue = upper
        } else if let contract = OptionContract(occ: upper) {
            self = contract.symbol
        } else {
            return nil
        }
    }

    /// A stock symbol as is (no checks beyond the form).
    init(stock text: String) { self.rawValue = text }

    static func isStock(_ upper: String) -> Bool {
        guard (1...maxStockLength).contains(upper.count),
              let first = upper.unicodeScalars.first, Symbol.isAlphanumeric(first),
              upper.unicodeScalars.allSatisfy({ Symbol.isAlphanumeric($0) || $0 == "." || $0 == "-" })
        else { return false }
        return true
    }

    /// Whether this is an option contract's symbol.
    public var isOption: Bool { rawValue.utf8.count > Symbol.maxStockLength }

    /// Whether this names a coin priced in dollars (`BTC-USD`): the pack, the importer and the
    /// demo exchange name coins so, and providers and the Alpaca-compatible API map them by it
    /// (Stooq's `btc.v`, Finnhub's `COINBASE:BTC-USD`, Alpaca's `BTC/USD`). The asset's class is
    /// the truth where the market data are at hand.
    public var isDollarPair: Bool { !isOption && rawValue.utf8.count > 4 && rawValue.hasSuffix("-USD") }

    /// The option contract this symbol names, nil for a stock.
    public var option: OptionContract? { isOption ? OptionContract(occ: rawValue) : nil }

    /// What an order for this symbol trades.
    public var instrument: InstrumentKind { isOption ? .option : .stock }

    /// How many shares one unit of this symbol stands for: 1, or 100 for an option contract.
    public var multiplier: Int64 { isOption ? OptionContract.multiplier : 1 }

    public var description: String { rawValue }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    public static func < (lhs: Symbol, rhs: Symbol) -> Bool { lhs.rawValue < rhs.rawValue }

}
