/**
 * A switchboard.toml that pins `[pricing] stale_after_days = inf`, for the tests that hold
 * stderr to exact text while pricing calls made today: 90 days after the shipped prices'
 * checked date each such call also warns SWITCHBOARD_STALE_PRICE, and those tests would
 * fail from that date on. The stale warning itself is tested at fixed dates
 * (costs.e2e.test.ts, with lines of their own `at`).
 */
export const NEVER_STALE_TOML = '[pricing]\nstale_after_days = inf\n';
