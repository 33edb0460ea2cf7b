import BullpenCore
import Foundation
import Testing

@Suite("NYSE trading calendar")
struct TradingCalendarTests {
    let calendar = TradingCalendar()
    func d(_ y: Int, _ m: Int, _ day: Int) -> SessionDate { SessionDate(year: y, month: m, day: day) }

    @Test func weekendsAndHolidaysAreClosed() {
        #expect(calendar.closure(on: d(2024, 3, 29)) == "Good Friday")
        #expect(calendar.closure(on: d(2024, 1, 15)) == "Martin Luther King Jr. Day")
        #expect(calendar.closure(on: d(2024, 11, 28)) == "Thanksgiving Day")
        #expect(calendar.closure(on: d(2024, 3, 30)) == "Weekend")
        #expect(calendar.isTradingDay(d(2024, 3, 28)))
    }

    @Test func observanceRulesMoveWeekendHolidays() {
        #expect(calendar.closure(on: d(2022, 6, 20)) == "Juneteenth")          // Sunday the 19th → Monday
        #expect(calendar.closure(on: d(2021, 12, 24)) == "Christmas Day")      // Saturday the 25th → Friday
        #expect(calendar.closure(on: d(2020, 7, 3)) == "Independence Day")     // Saturday the 4th → Friday
        #expect(calendar.closure(on: d(2017, 1, 2)) == "New Year's Day")       // Sunday the 1st → Monday
        #expect(calendar.isTradingDay(d(2021, 12, 31)))                         // Saturday 1 Jan 2022 is not made up
        #expect(calendar.isTradingDay(d(2021, 6, 18)))                          // Juneteenth starts in 2022
        #expect(calendar.isTradingDay(d(1997, 1, 20)))                          // MLK day starts in 1998
    }

    /// A replay's calendar does not foretell a closure nobody could have scheduled: on 2001-09-10
    /// the 11th was an ordinary Tuesday; once the replay stands on the 11th, it is closed.
    @Test func unscheduledClosuresAreKnownOnlyFromTheirDay() {
        let before = TradingCalendar(closuresKnownThrough: d(2001, 9, 10))
        for day in 11...14 { #expect(before.isTradingDay(d(2001, 9, day))) }
        #expect(before.nextOpen(after: TradingCalendar.instant(d(2001, 9, 10), 17, 0)) == TradingCalendar.instant(d(2001, 9, 11), 9, 30))
        let on = TradingCalendar(closuresKnownThrough: d(2001, 9, 11))
        #expect(on.closure(on: d(2001, 9, 11)) == "September 11 attacks" && on.isTradingDay(d(2001, 9, 13)))
        // Scheduled holidays are known ahead, as they were.
        #expect(before.closure(on: d(2001, 11, 22)) == "Thanksgiving Day")
    }

    @Test func specialClosuresAreKnown() {
        for day in 11...14 { #expect(!calendar.isTradingDay(d(2001, 9, day))) }
        #expect(calendar.closure(on: d(2012, 10, 29)) == "Hurricane Sandy")
        #expect(!calendar.isTradingDay(d(2025, 1, 9)))
        #expect(calendar.isTradingDay(d(2001, 9, 17)))
    }

    @Test func earlyClosesEndAtOnePM() throws {
        #expect(calendar.isEarlyClose(d(2024, 11, 29)))   // day after Thanksgiving
        #expect(calendar.isEarlyClose(d(2024, 12, 24)))
        #expect(calendar.isEarlyClose(d(2024, 7, 3)))
        #expect(!calendar.isEarlyClose(d(2024, 7, 5)))
        let (open, close) = try #require(calendar.sessionBounds(on: d(2024, 12, 24)))
        #expect(close.timeIntervalSince(open) == 3.5 * 3600)
    }

    @Test func sessionHoursFollowNewYorkTimeAcrossDaylightSaving() throws {
        // 9:30 EST = 14:30 UTC in January; 9:30 EDT = 13:30 UTC in July.
        let (winterOpen, _) = try #require(calendar.sessionBounds(on: d(2024, 1, 10)))
        #expect(winterOpen == Date(timeIntervalSince1970: 1_704_897_000))
        let (summerOpen, summerClose) = try #require(calendar.sessionBounds(on: d(2024, 7, 10)))
        #expect(summerOpen == Date(timeIntervalSince1970: 1_720_618_200))
        #expect(calendar.isOpen(at: summerOpen))
        #expect(!calendar.isOpen(at: summerClose))
        #expect(!calendar.isOpen(at: summerOpen - 1))
    }

    @Test func nextOpenSkipsWeekendsAndHolidays() throws {
        // Thursday 28 Nov 2024 (Thanksgiving) at noon → Friday 29 Nov 9:30.
        let thanksgivingNoon = TradingCalendar.instant(d(2024, 11, 28), 12, 0)
        #expect(calendar.nextOpen(after: thanksgivingNoon) == TradingCalendar.instant(d(2024, 11, 29), 9, 30))
        #expect(calendar.nextClose(after: thanksgivingNoon) == TradingCalendar.instant(d(2024, 11, 29), 13, 0))
        #expect(calendar.nextTradingDay(after: d(2024, 12, 24)) == d(2024, 12, 26))
        #expect(calendar.previousTradingDay(before: d(2024, 12, 26)) == d(2024, 12, 24))
    }

    @Test func easterIsComputedForEveryYear() {
        #expect(TradingCalendar.easter(2024) == d(2024, 3, 31))
        #expect(TradingCalendar.easter(2000) == d(2000, 4, 23))
        #expect(TradingCalendar.easter(2038) == d(2038, 4, 25))
    }

    @Test func theLastSessionClosedByAnInstant() {
        // Friday 2024-01-05: before its close, Thursday is the last closed session; after, Friday.
        #expect(calendar.lastSession(closedBy: TradingCalendar.instant(d(2024, 1, 5), 15, 59)) == d(2024, 1, 4))
        #expect(calendar.lastSession(closedBy: TradingCalendar.instant(d(2024, 1, 5), 16, 0)) == d(2024, 1, 5))
        #expect(calendar.lastSession(closedBy: TradingCalendar.instant(d(2024, 1, 7), 12, 0)) == d(2024, 1, 5))
        // The day after Thanksgiving closes early (13:00).
        #expect(calendar.lastSession(closedBy: TradingCalendar.instant(d(2024, 11, 29), 14, 0)) == d(2024, 11, 29))
    }
}
