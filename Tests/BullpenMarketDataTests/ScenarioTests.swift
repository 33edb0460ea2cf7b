import BullpenCore
import BullpenMarketData
import BullpenTestSupport
import Foundation
import Testing

@Suite("Scenarios")
struct ScenarioTests {
    @Test func scenariosAreWellFormed() {
        #expect(Set(Scenario.all.map(\.id)).count == Scenario.all.count)
        for kind in [Scenario.Kind.bubble, .bull, .bear, .crash, .recovery] {
            #expect(Scenario.all.contains { $0.kind == kind }, "\(kind)")
        }
        for scenario in Scenario.all {
            #expect(scenario.start < scenario.end && TradingCalendar().isTradingDay(scenario.start), "\(scenario.id)")
            #expect((1...10).contains(scenario.realSymbols.count) && (1...10).contains(scenario.demoSymbols.count))
            #expect(!scenario.description.isEmpty)
        }
    }

    /// Each scenario's real companies trade on its start date in the real pack.
    @Test(.enabled(if: RealPack.available))
    func everyRealSymbolTradesOnTheStartDate() async throws {
        let source = try await PackMarketData.load(directory: try RealPack.require()).source
        for scenario in Scenario.all {
            #expect(try await scenario.tradableSymbols(on: source) == scenario.realSymbols, "\(scenario.id)")
        }
        #expect(try await Scenario.available(on: source).map(\.scenario.id) == Scenario.all.map(\.id))
    }

    /// And the demo exchange's companies on the demo exchange.
    @Test func everyDemoSymbolTradesOnTheStartDate() async throws {
        let source = DemoExchange(time: FixedTimeSource(Date(timeIntervalSince1970: 1_795_464_000)))
        for scenario in Scenario.all {
            #expect(try await scenario.tradableSymbols(on: source) == scenario.demoSymbols, "\(scenario.id)")
        }
    }
}
