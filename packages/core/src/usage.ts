/**
 * `@downcity/core/usage`: the usage log (one JSON line per model call) and its sums, apart from
 * `primitives` because it validates with zod, which `status` and `--version` must not load.
 */
export { createUsageLog, sumUsage, type UsageRecord, type UsageTotals } from "./run/usage-log.js";
