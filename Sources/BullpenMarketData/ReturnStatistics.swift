import BullpenCore
import Foundation

/// The figures the demo exchange is calibrated on, measured the same way on real and simulated
/// series: annualised volatility, correlation with the index, kurtosis and volatility clustering
/// of daily log returns.
public struct ReturnStatistics: Sendable, Hashable {
    public var volatility: Double
    public var correlation: Double
    /// 3 for a normal distribution; real stocks show 8–25.
    public var kurtosis: Double
    /// Lag-1 autocorrelation of squared returns: above zero when calm and wild days cluster.
    public var clustering: Double

    /// Measures `bars` against `index` on the dates both have.
    public init?(_ bars: [DailyBar], index: [DailyBar]) {
        let indexClose = Dictionary(index.map { ($0.date, Double($0.close.ticks)) }, uniquingKeysWith: { a, _ in a })
        var own: [Double] = [], market: [Double] = []
        for (previous, current) in zip(bars, bars.dropFirst()) {
            guard let a = indexClose[previous.date], let b = indexClose[current.date],
                  previous.close.ticks > 0, current.close.ticks > 0 else { continue }
            let r = log(Double(current.close.ticks) / Double(previous.close.ticks))
            guard abs(r) < 1 else { continue }   // data errors, not returns
            own.append(r)
            market.append(log(b / a))
        }
        guard own.count > 250 else { return nil }
        func mean(_ x: [Double]) -> Double { x.reduce(0, +) / Double(x.count) }
        let m = mean(own), mm = mean(market)
        let variance = own.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(own.count)
        let marketVariance = market.reduce(0) { $0 + ($1 - mm) * ($1 - mm) } / Double(market.count)
        let covariance = zip(own, market).reduce(0) { $0 + ($1.0 - m) * ($1.1 - mm) } / Double(own.count)
        volatility = (variance * 252).squareRoot()
        correlation = covariance / (variance * marketVariance).squareRoot()
        kurtosis = own.reduce(0) { $0 + pow($1 - m, 4) } / Double(own.count) / (variance * variance)
        let squares = own.map { ($0 - m) * ($0 - m) }
        let sm = mean(squares)
        let lagged = zip(squares, squares.dropFirst()).reduce(0) { $0 + ($1.0 - sm) * ($1.1 - sm) }
        let total = squares.reduce(0) { $0 + ($1 - sm) * ($1 - sm) }
        clustering = lagged / total
    }

    /// Averages by group (e.g. by sector).
    public static func averages<Key: Hashable>(_ items: [(Key, ReturnStatistics)]) -> [Key: ReturnStatistics] {
        Dictionary(grouping: items, by: \.0).mapValues { group in
            let n = Double(group.count)
            var result = group[0].1
            result.volatility = group.reduce(0) { $0 + $1.1.volatility } / n
            result.correlation = group.reduce(0) { $0 + $1.1.correlation } / n
            result.kurtosis = group.reduce(0) { $0 + $1.1.kurtosis } / n
            result.clustering = group.reduce(0) { $0 + $1.1.clustering } / n
            return result
        }
    }
}

extension DemoExchange {
    /// The demo companies' figures by sector, measured over 1990–2017 (the span the targets were measured on).
    public func calibration() async throws -> [String: ReturnStatistics] {
        let end = SessionDate(year: 2017, month: 11, day: 10)
        let index = try await benchmarkBars(Self.indexName, from: nil, through: end, asOf: .live) ?? []
        var items: [(String, ReturnStatistics)] = []
        for company in DemoCompany.all {
            let bars = try await dailyBars(Symbol(company.symbol)!, from: nil, through: end, asOf: .live)
            if let stats = ReturnStatistics(bars, index: index) { items.append((company.sector.rawValue, stats)) }
        }
        return ReturnStatistics.averages(items)
    }

    /// The targets: each sector's median volatility and correlation in the real pack.
    public static var calibrationTargets: [String: (volatility: Double, correlation: Double)] {
        Dictionary(uniqueKeysWithValues: DemoSector.allCases.map { ($0.rawValue, ($0.volatility, $0.correlation)) })
    }
}
