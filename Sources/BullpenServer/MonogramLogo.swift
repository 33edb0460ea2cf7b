import BullpenCore

/// A monogram for companies without a logo: the symbol's first letters on a colour of its own.
enum MonogramLogo {
    /// The logo a client shows: the source's, or our monogram.
    static func url(for info: AssetInfo) -> String { info.logoURL ?? "/api/v1/assets/\(info.symbol.rawValue)/logo.svg" }

    /// The SVG text (the letters are A-Z only, so nothing needs escaping).
    static func svg(for symbol: Symbol) -> String {
        let hue = symbol.rawValue.unicodeScalars.reduce(7) { ($0 * 31 + Int($1.value)) % 360 }
        let letters = String(symbol.rawValue.filter(\.isLetter).prefix(2))
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64" role="img" aria-label="\(symbol.rawValue)">\
        <rect width="64" height="64" rx="14" fill="hsl(\(hue),45%,38%)"/>\
        <text x="32" y="41" font-family="system-ui,sans-serif" font-size="24" font-weight="600" fill="#fff" text-anchor="middle">\(letters)</text></svg>
        """
    }

    /// A player's monogram: the first letter of their username (letters, digits, `_` and `-`
    /// only, so nothing needs escaping) on a colour of their own.
    static func svg(forUsername username: String) -> String {
        let hue = username.lowercased().unicodeScalars.reduce(11) { ($0 * 31 + Int($1.value)) % 360 }
        let letter = String(username.prefix(1)).uppercased()
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64" role="img" aria-label="\(username)">\
        <circle cx="32" cy="32" r="32" fill="hsl(\(hue),40%,36%)"/>\
        <text x="32" y="42" font-family="system-ui,sans-serif" font-size="28" font-weight="600" fill="#fff" text-anchor="middle">\(letter)</text></svg>
        """
    }
}
