/// The checks Foundation's decoder does not make of a request body, in one pass over its bytes
/// before it is decoded: a key given twice in one object (the decoder would keep one silently),
/// null (which the decoder takes for a field left out), and a number written with a fraction or an exponent (`1.0`, `1e0`: every number a body takes is
/// a whole number, and money travels as decimal strings). Syntax errors are left to the decoder.
enum StrictJSON {
    struct Problem: Error, Equatable {
        var message: String
    }

    static func check(_ bytes: some Collection<UInt8>, fractions: Bool = false) throws(Problem) {
        var scanner = Scanner(bytes: Array(bytes), fractions: fractions)
        try scanner.value(key: nil, depth: 0)
    }

    private struct Scanner {
        let bytes: [UInt8]
        /// Whether numbers may have a fraction or an exponent.
        let fractions: Bool
        var index = 0
        static let maxDepth = 64

        init(bytes: [UInt8], fractions: Bool) { self.bytes = bytes; self.fractions = fractions }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        /// One value; `key` names it in messages. Stops quietly at anything malformed.
        mutating func value(key: String?, depth: Int) throws(Problem) {
            guard depth < Self.maxDepth else { throw Problem(message: "The body nests deeper than \(Self.maxDepth) levels.") }
            skipSpace()
            guard let byte = current else { return }
            switch byte {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if current == UInt8(ascii: "]") { index += 1; return }
                while current != nil {
                    try value(key: key, depth: depth + 1)
                    skipSpace()
                    guard current == UInt8(ascii: ",") else { break }
                    index += 1
                }
                if current == UInt8(ascii: "]") { index += 1 }
            case UInt8(ascii: "\""): _ = string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number(key: key)
            default:
                // true, false, null (or garbage, which the decoder reports). No field takes null:
                // one left out says "not given", and null must not say it a second way.
                let start = index
                while let next = current, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(next) { index += 1 }
                if bytes[start..<index].elementsEqual("null".utf8) {
                    throw Problem(message: "\(key.map { "'\($0)'" } ?? "A value") cannot be null: leave the field out instead.")
                }
            }
        }

        mutating func object(depth: Int) throws(Problem) {
            index += 1
            var keys = Set<String>()
            skipSpace()
            if current == UInt8(ascii: "}") { index += 1; return }
            while current == UInt8(ascii: "\"") {
                guard let key = string() else { return }
                guard keys.insert(key).inserted else {
                    throw Problem(message: "The field '\(key)' is given twice; give each field once.")
                }
                skipSpace()
                guard current == UInt8(ascii: ":") else { return }
                index += 1
                try value(key: key, depth: depth + 1)
                skipSpace()
                guard current == UInt8(ascii: ",") else { break }
                index += 1
                skipSpace()
            }
            if current == UInt8(ascii: "}") { index += 1 }
        }

        /// A string's decoded text (escapes resolved, so `"a"` and `"\u0061"` are one key); nil if malformed.
        mutating func string() -> String? {
            index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                if !raw.isEmpty { scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars); raw.removeAll() }
            }
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard let escape = current else { return nil }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "u"):
                        guard var code = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(code), current == UInt8(ascii: "\\"),
                           index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") {
                            index += 2
                            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    default: scalars.append(Unicode.Scalar(escape))
                    }
                default:
                    raw.append(byte)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var code: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
                code = code << 4 | UInt32(digit)
            }
            index += 4
            return code
        }

        mutating func number(key: String?) throws(Problem) {
            while let byte = current {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"): index += 1
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                    if fractions { index += 1; continue }
                    let field = key.map { "'\($0)'" } ?? "A number"
                    throw Problem(message: "\(field) must be a whole number written without a point or an exponent (like 10, not 10.0 or 1e1).")
                default: return
                }
            }
        }
    }
}
