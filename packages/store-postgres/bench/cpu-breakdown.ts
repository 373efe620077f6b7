// Splits a daemon's CPU profile into the parts of an event's path (issue 32's scaling figure): each
// busy sample goes to the innermost frame on its stack that belongs to a known part (the frame's
// source file, through the bundles' source maps). Samples with no such frame (Node's own code
// called back from the event loop: web streams, socket reads, promise hooks) go to "node internals"
// by the module of the sample's own frame.

/** The parts, tried in order on each frame from the innermost out; the first match owns the sample. */
const parts: Array<[string, RegExp]> = [
  [
    "logging (pino, file logger)",
    /\/(pino|sonic-boom|@pinojs|fast-redact|thread-stream)\/|\/core\/src\/logger\/|\/daemon\/src\/logging\//,
  ],
  [
    "store: pg driver + store-postgres + core store",
    /\/node_modules\/(pg|pg-pool|pg-protocol|pg-types|pg-connection-string|postgres-[a-z]+)\/|\/store-postgres\/src\/|\/core\/src\/(store|history)\//,
  ],
  ["webhook channel (intake, signatures, reply POST)", /adapters-webhook/],
  [
    "model call: HTTP + SSE parsing (provider)",
    /undici|@ai-sdk\/openai-compatible|@ai-sdk\/provider-utils|eventsource-parser|\/daemon\/src\/runtime\/model-fetch/,
  ],
  ["AI SDK (ai package)", /\/node_modules\/ai\/|\/ai\/src\/|@opentelemetry/],
  ["run (core/src/run)", /\/core\/src\/run\//],
  ["channel delivery + host (core/src/channel)", /\/core\/src\/channel\//],
  ["lanes (core/src/lanes)", /\/core\/src\/lanes\//],
  ["prompt + memory plug-in", /\/core\/src\/prompt\/|\/memory\/src\/|\/core\/src\/fs\//],
  ["other core (agent, context, events)", /\/core\/src\//],
  ["other daemon + plug-ins", /\/daemon\/src\/|\/(tasks|shell|skills|mcp)\/src\//],
  ["zod (caller not on the stack)", /\/zod\//],
  ["profiler harness", /profiled-daemon/],
];

/** One sample's stack, innermost frame first: each frame's source file and function name. */
export type SampleStack = Array<{ source: string; name: string }>;

/** Shares of busy samples by part, largest first. */
export function breakdown(stacks: Iterable<SampleStack>): Array<[string, number]> {
  const counts = new Map<string, number>();
  let busy = 0;
  for (const stack of stacks) {
    busy++;
    const leaf = stack[0];
    let part: string | undefined;
    if (leaf?.name === "(garbage collector)") part = "garbage collection";
    else if (leaf?.name === "(program)") part = "(program: V8 outside JS)";
    else
      for (const frame of stack) {
        part = parts.find(([, pattern]) => pattern.test(frame.source))?.[0];
        if (part) break;
      }
    part ??= `node internals: ${(leaf?.source || leaf?.name || "?").replace(/^node:(internal\/)?/, "")}`;
    counts.set(part, (counts.get(part) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([part, count]): [string, number] => [part, count / Math.max(1, busy)]);
}

/** The part lines of a breakdown in ms of CPU per event (`cpuMs` per event in all), parts under `minShare` summed. */
export function breakdownLines(shares: Array<[string, number]>, cpuMs: number, minShare = 0.01): string[] {
  const shown = shares.filter(([, share]) => share >= minShare);
  const rest = shares.filter(([, share]) => share < minShare).reduce((sum, [, share]) => sum + share, 0);
  return [...shown, ...(rest > 0 ? [["(parts under 1 % each)", rest] as [string, number]] : [])].map(
    ([part, share]) =>
      `    ${(share * cpuMs).toFixed(2).padStart(6)} ms ${`${(share * 100).toFixed(1)} %`.padStart(7)}  ${part}`,
  );
}
