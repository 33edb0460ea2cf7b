import FluentKit

extension Migrations {
    /// Every migration, in order. Add new ones at the end; never edit one that has landed.
    static let bullpen: [any Migration] = [
        M0001_CreateUsers(),
        M0002_CreateSessions(),
        M0003_CreatePortfolios(),
        M0004_CreateTrading(),
        M0005_CreateIdempotencyKeys(),
        M0006_CreateWatchlists(),
        M0007_AddFillPricingAndOrderSequence(),
    ]
}
