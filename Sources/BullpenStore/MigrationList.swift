import FluentKit

extension Migrations {
    /// Every migration, in the order they run: the first seven as they landed (``bullpen``, never
    /// edited again), then each later one, appended here.
    static let all: [any Migration] = bullpen + [
        M0008_AddIdempotencyOrderID(),
        M0009_AddReplay(),
        M0010_AddLeagues(),
        M0011_AddStandingsFeeds(),
        M0012_AddCarriedBasis(),
        M0013_AddThrottles(),
        M0014_AddSocial(),
        M0015_AddNotifications(),
        M0016_AddWorkingOrders(),
        M0017_AddAPIKeys(),
        M0018_FixedPointQuantities(),
        M0019_AddLearnProgress(),
        M0020_AddFirstRun(),
    ]
}
