import BullpenCore
import Foundation

/// An invented cryptocurrency of the demo exchange: priced in dollars, every calendar day.
struct DemoCoin: Sendable {
    var symbol: String
    var name: String
    var description: String
    /// The first day it trades and its price then.
    var launch: SessionDate
    var launchPrice: Double
    /// The typical daily move (a standard deviation of log returns) and the drift per day.
    var dailyVolatility: Double
    var dailyDrift: Double
    /// Typical coins traded a day.
    var volume: Double
}

/// The demo exchange's coins: crypto-like volatility (three to eight times a large stock's), fat
/// tails, clustered calm and storm, trading every day around the clock. A session is a UTC day;
/// like the companies, the history is generated from a seed, through a year past today.
enum DemoCoins {
    static let all: [DemoCoin] = [
        DemoCoin(symbol: "BPC-USD", name: "Bullpen Coin", description: "The demo exchange's first invented coin: a store of value for imaginary people, famous for its swings.",
                 launch: SessionDate(year: 2014, month: 1, day: 1), launchPrice: 420, dailyVolatility: 0.040, dailyDrift: 0.0011, volume: 25_000),
        DemoCoin(symbol: "EMBR-USD", name: "Ember", description: "An invented coin for an invented network of smart contracts; it rises and falls with its fans.",
                 launch: SessionDate(year: 2016, month: 3, day: 1), launchPrice: 9, dailyVolatility: 0.052, dailyDrift: 0.0012, volume: 400_000),
        DemoCoin(symbol: "QRM-USD", name: "Quorum", description: "An invented coin whose holders vote on its future; a young, volatile asset.",
                 launch: SessionDate(year: 2017, month: 6, day: 1), launchPrice: 1.2, dailyVolatility: 0.060, dailyDrift: 0.0006, volume: 3_000_000),
        DemoCoin(symbol: "HOP-USD", name: "Hopscotch", description: "An invented joke coin: tiny price, huge volume, moves of 20 % in a day are common.",
                 launch: SessionDate(year: 2019, month: 4, day: 1), launchPrice: 0.004, dailyVolatility: 0.080, dailyDrift: 0.0004, volume: 900_000_000),
    ]

    /// A session is a UTC day: 17,280 ticks of five seconds.
    static let ticksPerDay = 17_280

    /// A coin's price on the tick grid: whole cents from a dollar, a ten-thousandth of a dollar below, never zero.
    static func price(_ dollars: Double) -> Price {
        Price(ticks: max(Int64((dollars * 10_000).rounded()), 1)).roundedToTradingTick()
    }

    /// Every coin's daily bars from its launch through `last`, every calendar day.
    static func generate(through last: SessionDate, seed: UInt64) -> [(Symbol, ColumnBuilder)] {
        all.map { coin in
            var noise = Noise(seed: Noise.seed(seed, 0xC0175, UInt64(coin.symbol.hashValueStable)))
            var clustering = Clustering()
            var builder = ColumnBuilder(capacity: Int(last.day - coin.launch.day) + 1)
            var close = coin.launchPrice
            var day = coin.launch
            while day <= last {
                let shock = noise.fatTailed()
                let move = coin.dailyDrift + coin.dailyVolatility * clustering.next(shock) * shock
                let open = close
                close = max(open * exp(move), 0.0001)
                let reach = coin.dailyVolatility * 0.5
                let high = max(open, close) * exp(abs(noise.normal()) * reach)
                let low = min(open, close) * exp(-abs(noise.normal()) * reach)
                let bar = DailyBar(date: day, open: price(open), high: price(high), low: price(low), close: price(close),
                                   volume: Int64(coin.volume * exp(0.4 * noise.normal() + 3 * abs(move))))
                // On the tick grid the rounded prices must still bound each other.
                var fixed = bar
                fixed.high = max(fixed.high, fixed.open, fixed.close)
                fixed.low = min(fixed.low, fixed.open, fixed.close)
                builder.append(fixed)
                day = day.adding(days: 1)
            }
            return (Symbol(coin.symbol)!, builder)
        }
    }
}
