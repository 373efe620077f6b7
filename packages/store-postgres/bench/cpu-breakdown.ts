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

// Native bindings that enter the kernel (socket and file writes, opens). The sampler takes wall
// time on the daemon's thread, so on a busy machine their samples are mostly the thread waiting for
// a core after the call woke another process (PostgreSQL, a thread-pool thread): \`perf record -e
// cpu-clock\` on the same load puts about a tenth of the daemon's on-CPU time in the kernel.
const syscalls = /^(writev|writeString|writeBuffer|writeUtf8String|open|close|read|fstat|fsync|fdatasync)$/;
const syscallPart = "system calls from JS (writev, fs writes; mostly waiting for a core, see above)";

/** One sample's stack, innermost frame first: each frame's source file and function name. */
export type SampleStack = Array<{ source: string; name: string }>;

/** One part's share of the busy samples, and its most frequent innermost frames (function and file). */
export type PartShare = [part: string, share: number, leaves: Array<[string, number]>];

/** Shares of busy samples by part, largest first. */
export function breakdown(stacks: Iterable<SampleStack>): PartShare[] {
  const counts = new Map<string, Map<string, number>>();
  let busy = 0;
  for (const stack of stacks) {
    busy++;
    const leaf = stack[0];
    let part: string | undefined;
    if (leaf?.name === "(garbage collector)") part = "garbage collection";
    else if (leaf && !leaf.source.includes(":") && syscalls.test(leaf.name)) part = syscallPart;
    else if (leaf?.name === "(program)") part = "(program: V8 outside JS)";
    else
      for (const frame of stack) {
        part = parts.find(([, pattern]) => pattern.test(frame.source))?.[0];
        if (part) break;
      }
    part ??= `node internals: ${(leaf?.source || leaf?.name || "?").replace(/^node:(internal\/)?/, "")}`;
    const leaves = counts.get(part) ?? new Map<string, number>();
    const label = `${leaf?.name || "(anonymous)"} ${(leaf?.source ?? "").replace(/^.*\/(node_modules|packages|apps)\//, "")}`;
    leaves.set(label, (leaves.get(label) ?? 0) + 1);
    counts.set(part, leaves);
  }
  const total = (leaves: Map<string, number>) => [...leaves.values()].reduce((sum, count) => sum + count, 0);
  const share = (count: number) => count / Math.max(1, busy);
  return [...counts]
    .map(
      ([part, leaves]): PartShare => [
        part,
        share(total(leaves)),
        [...leaves]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 4)
          .map(([label, count]): [string, number] => [label, share(count)]),
      ],
    )
    .sort((a, b) => b[1] - a[1]);
}

/**
 * The part lines of a breakdown in ms of CPU per event (`cpuMs` per event in all), parts under
 * `minShare` summed; `leaves` adds each part's most frequent innermost frames. The system calls'
 * samples are shown but not counted as CPU: the other parts share `cpuMs` in proportion.
 */
export function breakdownLines(
  shares: PartShare[],
  cpuMs: number,
  options: { minShare?: number; leaves?: boolean } = {},
): string[] {
  const minShare = options.minShare ?? 0.01;
  const waiting = shares.find(([part]) => part === syscallPart)?.[1] ?? 0;
  const scale = cpuMs / Math.max(0.01, 1 - waiting);
  const line = (share: number, label: string, indent: string, counted = true) =>
    `${indent}${counted ? `${(share * scale).toFixed(2).padStart(6)} ms` : "     - ms"} ${`${(share * 100).toFixed(1)} %`.padStart(7)}  ${label}`;
  const lines: string[] = [];
  for (const [part, share, leaves] of shares.filter(([, value]) => value >= minShare)) {
    lines.push(line(share, part, "    ", part !== syscallPart));
    if (options.leaves)
      for (const [label, leafShare] of leaves)
        lines.push(line(leafShare, label, "        ", part !== syscallPart));
  }
  const rest = shares.filter(([, share]) => share < minShare).reduce((sum, [, share]) => sum + share, 0);
  if (rest > 0) lines.push(line(rest, `(parts under ${minShare * 100} % each)`, "    "));
  return lines;
}
