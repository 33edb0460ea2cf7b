import Foundation

/// A session date as a day number (days since 1970-01-01, UTC), compact and easy to compare.
public struct SessionDate: Hashable, Comparable, Sendable, Strideable, CustomStringConvertible {
    public var day: Int32

    public init(day: Int32) { self.day = day }

    /// Parses `YYYY-MM-DD`.
    public init?(iso text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                let digit = Int(utf8[i]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10),
              (1...12).contains(m), (1...31).contains(d) else { return nil }
        self.day = Int32(SessionDate.daysFromCivil(year: y, month: m, day: d))
    }

    public init(_ date: Date) {
        self.day = Int32((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// Midnight UTC of this session date.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(day) * 86_400) }

    public var description: String {
        let (y, m, d) = SessionDate.civil(fromDays: Int(day))
        func pad(_ n: Int, _ width: Int) -> String { let s = String(n); return String(repeating: "0", count: max(0, width - s.count)) + s }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    public static func < (lhs: SessionDate, rhs: SessionDate) -> Bool { lhs.day < rhs.day }

    public init(year: Int, month: Int, day: Int) {
        self.day = Int32(SessionDate.daysFromCivil(year: year, month: month, day: day))
    }

    /// Year, month (1-12) and day of the month.
    public var components: (year: Int, month: Int, day: Int) { SessionDate.civil(fromDays: Int(day)) }

    /// 0 = Sunday ... 6 = Saturday.
    public var weekday: Int { Int(((Int64(day) % 7) + 11) % 7) }

    public var isWeekend: Bool { weekday == 0 || weekday == 6 }

    /// The day of the week in English: "Sunday" ... "Saturday".
    public var weekdayName: String {
        ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][weekday]
    }

    /// The date `days` later (earlier when negative).
    public func adding(days: Int) -> SessionDate { SessionDate(day: day + Int32(days)) }

    public func distance(to other: SessionDate) -> Int { Int(other.day - day) }
    public func advanced(by n: Int) -> SessionDate { adding(days: n) }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

