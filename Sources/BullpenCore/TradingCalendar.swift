import Foundation

/// The New York Stock Exchange's calendar, computed from rules: weekends, the holidays with their
/// observance rules, the special closures, and the early (1 p.m.) closes. From 1990 on it yields
/// exactly the days of the S&P 500's history (a test proves it against the data pack).
public struct TradingCalendar: Sendable {
    /// Regular session times, New York local time.
    public static let open = (hour: 9, minute: 30)
    public static let close = (hour: 16, minute: 0)
    public static let earlyClose = (hour: 13, minute: 0)
    public static let newYork = TimeZone(identifier: "America/New_York")!

    /// Closures outside the holiday rules: national days of mourning, 9/11, Hurricane Sandy.
    public static let specialClosures: [SessionDate: String] = [
        SessionDate(year: 1994, month: 4, day: 27): "National Day of Mourning for Richard Nixon",
        SessionDate(year: 2001, month: 9, day: 11): "September 11 attacks",
        SessionDate(year: 2001, month: 9, day: 12): "September 11 attacks",
        SessionDate(year: 2001, month: 9, day: 13): "September 11 attacks",
        SessionDate(year: 2001, month: 9, day: 14): "September 11 attacks",
        SessionDate(year: 2004, month: 6, day: 11): "National Day of Mourning for Ronald Reagan",
        SessionDate(year: 2007, month: 1, day: 2): "National Day of Mourning for Gerald Ford",
        SessionDate(year: 2012, month: 10, day: 29): "Hurricane Sandy",
        SessionDate(year: 2012, month: 10, day: 30): "Hurricane Sandy",
        SessionDate(year: 2018, month: 12, day: 5): "National Day of Mourning for George H. W. Bush",
        SessionDate(year: 2025, month: 1, day: 9): "National Day of Mourning for Jimmy Carter",
    ]

    /// The last day whose unscheduled closures (``specialClosures``) are known: a replay's date,
    /// so that its calendar never foretells a closure nobody could have scheduled. Nil: all known.
    public var closuresKnownThrough: SessionDate?

    public init(closuresKnownThrough: SessionDate? = nil) { self.closuresKnownThrough = closuresKnownThrough }

    /// Why the exchange is closed on `date`, or nil on a trading day.
    public func closure(on date: SessionDate) -> String? {
        if date.isWeekend { return "Weekend" }
        if let special = Self.specialClosures[date], closuresKnownThrough.map({ date <= $0 }) ?? true { return special }
        return holidays(in: date.components.year)[date]
    }

    public func isTradingDay(_ date: SessionDate) -> Bool { closure(on: date) == nil }

    /// Whether the session of `date` (a trading day) ends at 1 p.m.
    public func isEarlyClose(_ date: SessionDate) -> Bool {
        guard isTradingDay(date) else { return false }
        let (year, month, day) = date.components
        if month == 7 && day == 3 { return true }                       // eve of Independence Day
        if month == 12 && day == 24 { return true }                     // Christmas Eve
        if month == 11, let thanksgiving = Self.nthWeekday(4, weekday: 4, month: 11, year: year),
           date == thanksgiving.adding(days: 1) { return true }          // the day after Thanksgiving
        return false
    }

    /// The trading days from `start` to `end`, both included.
    public func tradingDays(from start: SessionDate, through end: SessionDate) -> [SessionDate] {
        guard start <= end else { return [] }
        return (start...end).filter(isTradingDay)
    }

    /// The first trading day after `date`.
    public func nextTradingDay(after date: SessionDate) -> SessionDate {
        var next = date.adding(days: 1)
        while !isTradingDay(next) { next = next.adding(days: 1) }
        return next
    }

    /// The last trading day before `date`.
    public func previousTradingDay(before date: SessionDate) -> SessionDate {
        var previous = date.adding(days: -1)
        while !isTradingDay(previous) { previous = previous.adding(days: -1) }
        return previous
    }

    /// The last trading day on or before `date`.
    public func tradingDay(onOrBefore date: SessionDate) -> SessionDate {
        isTradingDay(date) ? date : previousTradingDay(before: date)
    }

    /// The holidays the exchange observes in `year`, by the rules in force that year (worked out
    /// once per year for the years replays and live trading use: every trading-day question asks).
    public func holidays(in year: Int) -> [SessionDate: String] {
        Self.holidayTable[year] ?? Self.computeHolidays(in: year)
    }

    private static let holidayTable: [Int: [SessionDate: String]] =
        Dictionary(uniqueKeysWithValues: (1950...2150).map { ($0, computeHolidays(in: $0)) })

    private static func computeHolidays(in year: Int) -> [SessionDate: String] {
        var result: [SessionDate: String] = [:]
        func add(_ date: SessionDate?, _ name: String) { if let date { result[date] = name } }

        // New Year's Day: a Sunday moves to Monday; a Saturday is not made up on the Friday before.
        let newYear = SessionDate(year: year, month: 1, day: 1)
        add(newYear.weekday == 0 ? newYear.adding(days: 1) : newYear, "New Year's Day")
        if year >= 1998 { add(Self.nthWeekday(3, weekday: 1, month: 1, year: year), "Martin Luther King Jr. Day") }
        add(Self.nthWeekday(3, weekday: 1, month: 2, year: year), "Washington's Birthday")
        add(Self.easter(year).adding(days: -2), "Good Friday")
        add(Self.lastWeekday(1, month: 5, year: year), "Memorial Day")
        if year >= 2022 { add(Self.observed(SessionDate(year: year, month: 6, day: 19)), "Juneteenth") }
        add(Self.observed(SessionDate(year: year, month: 7, day: 4)), "Independence Day")
        add(Self.nthWeekday(1, weekday: 1, month: 9, year: year), "Labor Day")
        add(Self.nthWeekday(4, weekday: 4, month: 11, year: year), "Thanksgiving Day")
        add(Self.observed(SessionDate(year: year, month: 12, day: 25)), "Christmas Day")
        return result.filter { !$0.key.isWeekend }
    }

    // MARK: - Session times

    /// Whether the exchange is in its regular session at `instant`.
    public func isOpen(at instant: Date) -> Bool {
        let date = Self.sessionDate(at: instant)
        guard isTradingDay(date), let (open, close) = sessionBounds(on: date) else { return false }
        return instant >= open && instant < close
    }

    /// The opening and closing instants of `date`'s session, or nil when it is not a trading day.
    public func sessionBounds(on date: SessionDate) -> (open: Date, close: Date)? {
        guard isTradingDay(date) else { return nil }
        let closing = isEarlyClose(date) ? Self.earlyClose : Self.close
        return (Self.instant(date, Self.open.hour, Self.open.minute), Self.instant(date, closing.hour, closing.minute))
    }

    /// The next session open strictly after `instant`, and the next close after `instant`.
    public func nextOpen(after instant: Date) -> Date {
        var date = Self.sessionDate(at: instant)
        while true {
            if let (open, _) = sessionBounds(on: date), open > instant { return open }
            date = date.adding(days: 1)
        }
    }

    public func nextClose(after instant: Date) -> Date {
        var date = Self.sessionDate(at: instant)
        while true {
            if let (_, close) = sessionBounds(on: date), close > instant { return close }
            date = date.adding(days: 1)
        }
    }

    /// The last session whose close came at or before `instant`.
    public func lastSession(closedBy instant: Date) -> SessionDate {
        var day = tradingDay(onOrBefore: Self.sessionDate(at: instant))
        if let close = sessionBounds(on: day)?.close, close > instant { day = previousTradingDay(before: day) }
        return day
    }

    /// The New York calendar date of `instant`.
    public static func sessionDate(at instant: Date) -> SessionDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = newYork
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return SessionDate(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    /// `hour:minute` New York time on `date`.
    public static func instant(_ date: SessionDate, _ hour: Int, _ minute: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = newYork
        let (y, m, d) = date.components
        return calendar.date(from: DateComponents(year: y, month: m, day: d, hour: hour, minute: minute))!
    }

    // MARK: - Date rules

    /// Saturday holidays move to Friday, Sunday ones to Monday.
    static func observed(_ date: SessionDate) -> SessionDate {
        switch date.weekday {
        case 6: date.adding(days: -1)
        case 0: date.adding(days: 1)
        default: date
        }
    }

    /// The `n`th `weekday` (0 = Sunday) of `month`.
    static func nthWeekday(_ n: Int, weekday: Int, month: Int, year: Int) -> SessionDate? {
        let first = SessionDate(year: year, month: month, day: 1)
        let offset = (weekday - first.weekday + 7) % 7
        let date = first.adding(days: offset + 7 * (n - 1))
        return date.components.month == month ? date : nil
    }

    /// The last `weekday` of `month`.
    static func lastWeekday(_ weekday: Int, month: Int, year: Int) -> SessionDate {
        let nextMonth = month == 12 ? SessionDate(year: year + 1, month: 1, day: 1) : SessionDate(year: year, month: month + 1, day: 1)
        let last = nextMonth.adding(days: -1)
        return last.adding(days: -((last.weekday - weekday + 7) % 7))
    }

    /// Easter Sunday (Gregorian, anonymous algorithm).
    public static func easter(_ year: Int) -> SessionDate {
        let a = year % 19, b = year / 100, c = year % 100, d = b / 4, e = b % 4
        let f = (b + 8) / 25, g = (b - f + 1) / 3, h = (19 * a + b - d - g + 15) % 30
        let i = c / 4, k = c % 4, l = (32 + 2 * e + 2 * i - h - k) % 7
        let m = (a + 11 * h + 22 * l) / 451
        let month = (h + l - 7 * m + 114) / 31, day = (h + l - 7 * m + 114) % 31 + 1
        return SessionDate(year: year, month: month, day: day)
    }
}
