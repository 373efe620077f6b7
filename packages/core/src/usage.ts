/**
 * `@downcity/core/usage`: the usage log (one JSON line per model call) and its sums, apart from
 * `primitives` because it validates with zod, which `status` and `--version` must not load.
 */
export { createUsageLog } from "./store/file/file-usage-store.js";
export { sumUsage, type UsageRecord, type UsageStore, type UsageTotals } from "./store/usage-store.js";
