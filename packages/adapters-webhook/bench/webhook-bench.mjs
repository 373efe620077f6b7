// Webhook channel benchmark: request received -> 202 sent on the channel's listener, against a bare
// node:http server that does the same fsynced append, both measured in this run the same way.
// Run: pnpm --filter @downcity/adapters-webhook bench (builds first). Not part of the test run.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdtemp, open, rm } from "node:fs/promises";
import { Agent, createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createWebhookAdapter, signWebhookBody } from "../dist/index.js";

const secret = "bench-secret-0123456789abcdef";
const iterations = Number(process.env.BENCH_ITERATIONS ?? 4000);
const warmup = 200;
const root = await mkdtemp(join(tmpdir(), "webhook-bench-"));
const fmt = (ms) => `${ms.toFixed(3)} ms`;
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor(values.length * q)];

/** The durable part both servers share: one JSON line appended and fsynced per event. */
async function openLog(name) {
  const handle = await open(join(root, name), "a");
  return {
    append: async (line) => {
      await handle.write(`${line}\n`);
      await handle.sync();
    },
    close: () => handle.close(),
  };
}

/**
 * Server-side time from "request headers parsed" to "response finished", per server, via
 * node:http's own diagnostics channels (no hook inside either server).
 */
function serverTimer() {
  const started = new WeakMap();
  const samples = new Map();
  let recording = false;
  const onStart = ({ request }) => started.set(request, performance.now());
  const onFinish = ({ request, response, server }) => {
    const at = started.get(request);
    if (!recording || at === undefined || response.statusCode !== 202) return;
    if (!samples.has(server)) samples.set(server, []);
    samples.get(server).push(performance.now() - at);
  };
  subscribe("http.server.request.start", onStart);
  subscribe("http.server.response.finish", onFinish);
  return {
    record: () => {
      recording = true;
    },
    samplesOf: (server) => samples.get(server) ?? [],
    stop() {
      unsubscribe("http.server.request.start", onStart);
      unsubscribe("http.server.response.finish", onFinish);
    },
  };
}

function post(agent, port, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/events",
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "x-downcity-signature": signWebhookBody(secret, body),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const timer = serverTimer();

// Baseline: a bare node:http server reading the body and answering 202 after the same append.
const baselineLog = await openLog("baseline.jsonl");
const baseline = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    await baselineLog.append(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(202, { "content-type": "application/json" }).end('{"accepted":true}');
  });
});
await new Promise((resolve) => baseline.listen(0, "127.0.0.1", resolve));

// The channel: signature check, JSON parse, zod validation, then the inbox doing the same append.
const channelLog = await openLog("channel.jsonl");
const adapter = createWebhookAdapter({
  listen: { host: "127.0.0.1", port: 0 },
  url: "http://127.0.0.1:9/",
  secret,
});
const seen = new Set();
await adapter.start({
  channel: "bench",
  inbox: {
    async accept(event) {
      if (seen.has(event.eventId)) return "duplicate";
      seen.add(event.eventId);
      await channelLog.append(JSON.stringify(event));
      return "accepted";
    },
  },
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  signal: new AbortController().signal,
  stateDir: root,
  setState() {},
});
// The adapter's server object is private: the first channel request tells the timer which one it is.
let channelServer;
const findChannel = ({ server }) => {
  if (server !== baseline) channelServer = server;
};
subscribe("http.server.request.start", findChannel);

// One request to each in turn, so load from elsewhere on the machine hits both alike.
const targets = [
  {
    label: "baseline",
    port: baseline.address().port,
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    roundTrips: [],
  },
  {
    label: "channel",
    port: adapter.address().port,
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    roundTrips: [],
  },
];
for (let index = -warmup; index < iterations; index++) {
  if (index === 0) timer.record();
  for (const target of targets) {
    const body = JSON.stringify({
      eventId: `${target.label}-${index}`,
      chatId: `chat-${index % 10}`,
      chatType: "direct",
      userId: "u1",
      text: "hello from the bench",
    });
    const start = performance.now();
    const status = await post(target.agent, target.port, body);
    if (status !== 202) throw new Error(`${target.label}: status ${status}`);
    if (index >= 0) target.roundTrips.push(performance.now() - start);
  }
}
unsubscribe("http.server.request.start", findChannel);
timer.stop();
for (const target of targets) target.agent.destroy();
await adapter.stop();
await new Promise((resolve) => baseline.close(resolve));
await baselineLog.close();
await channelLog.close();
await rm(root, { recursive: true, force: true });

const serverSamples = { baseline: timer.samplesOf(baseline), channel: timer.samplesOf(channelServer) };
const line = (label, samples) =>
  `${label.padEnd(34)} p50 ${fmt(quantile(samples, 0.5))}  p90 ${fmt(quantile(samples, 0.9))}  p99 ${fmt(quantile(samples, 0.99))}  (n=${samples.length})`;
console.log(`request received -> 202 sent (server side), one sender each, keep-alive, requests alternated:`);
console.log(line("  bare node:http + fsynced append", serverSamples.baseline));
console.log(line("  webhook channel", serverSamples.channel));
const channelP50 = quantile(serverSamples.channel, 0.5);
const baselineP50 = quantile(serverSamples.baseline, 0.5);
console.log(
  `  -> ${(channelP50 / baselineP50).toFixed(2)}x baseline, overhead ${fmt(channelP50 - baselineP50)} (signature, JSON, zod, mapping)`,
);
console.log("client round trip (for reference):");
for (const target of targets)
  console.log(
    line(
      `  ${target.label === "channel" ? "webhook channel" : "bare node:http + fsynced append"}`,
      target.roundTrips,
    ),
  );
const target = 5;
console.log(`target: channel p50 <= ${target} ms -> ${channelP50 <= target ? "met" : "NOT MET"}`);
if (channelP50 > target) process.exitCode = 1;
