import { z } from "zod";

/**
 * How many days something the daemon keeps on disk (run journals, day logs, shell sessions) stays
 * before it is pruned: a whole number from 1 to 3650, `fallback` when unset. One schema, so every
 * `retainDays` setting takes the same range.
 */
export function retainDaysSchema(fallback: number, description: string) {
  return z.number().int().min(1).max(3650).default(fallback).describe(description);
}
