import BullpenAPI
import BullpenCore
import BullpenMarketData
import Foundation

// Conversions from market data values to the wire types.

extension AssetSummaryDTO {
    init(_ snapshot: AssetSnapshot) {
        self.init(symbol: snapshot.info.symbol.rawValue, name: snapshot.info.name, sector: snapshot.info.sector,
                  price: snapshot.quote?.price.decimalString, change: snapshot.quote?.change?.decimalString,
                  changePercent: snapshot.changePercent?.decimalString, volume: snapshot.quote?.volume,
                  asOf: snapshot.quote?.asOf, logoUrl: MonogramLogo.url(for: snapshot.info), trading: snapshot.trading)
        assetClass = snapshot.info.assetClass.rawValue
    }
}

extension QuoteDTO {
    init(symbol: Symbol, quote: Quote) {
        self.init(symbol: symbol.rawValue, price: quote.price.decimalString, previousClose: quote.previousClose?.decimalString,
                  change: quote.change?.decimalString, changePercent: quote.changePercent?.decimalString,
                  volume: quote.volume, asOf: quote.asOf, trading: quote.trading)
    }
}

extension BarDTO {
    init(_ bar: DailyBar) {
        self.init(date: bar.date.description, open: bar.open.decimalString, high: bar.high.decimalString,
                  low: bar.low.decimalString, close: bar.close.decimalString, volume: bar.volume)
    }
}

extension BarSeriesDTO {
    /// Daily bars shaped for a chart: the interval asked for, or the smallest that keeps it at
    /// or under 500 points.
    init(_ symbol: String, _ daily: [DailyBar], range: ChartRange, interval: BarInterval?, simulated: Bool) {
        let chosen = interval ?? Research.automaticInterval(forDailyBars: daily.count)
        self.init(symbol: symbol, range: range.rawValue, interval: chosen.rawValue,
                  bars: Research.shape(daily, interval: chosen).map(BarDTO.init), simulated: simulated)
    }
}
