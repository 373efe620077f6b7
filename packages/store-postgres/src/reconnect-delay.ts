/**
 * The pause before reconnect attempt `attempt` (0 = the first): doubling from `baseMs` up to
 * `maxMs`, with jitter, so workers that lost the server together do not reconnect in lockstep.
 */
export function reconnectDelay(attempt: number, options: { baseMs?: number; maxMs?: number } = {}): number {
  const baseMs = options.baseMs ?? 100;
  const maxMs = options.maxMs ?? 5000;
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
