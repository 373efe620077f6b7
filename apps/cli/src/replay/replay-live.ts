import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { JournalRecord } from "@downcity/core";
import { downcityPaths } from "@downcity/core/primitives";
import { normalizeToolOutput } from "./normalize-tool-output.js";

type Of<Type extends JournalRecord["type"]> = Extract<JournalRecord, { type: Type }>;

/** What a live replay found: every tool output as recorded, or the first that differs. */
export interface LiveReplayReport {
  identical: boolean;
  /** Tool calls recorded, and how many the live run executed. */
  recordedToolCalls: number;
  liveToolCalls: number;
  difference?: { step: number; toolCallId: string; toolName: string; recorded: unknown; live: unknown };
}

/**
 * Copies the project to a throw-away folder without its `.downcity` state, and makes its config
 * inert: no shared store, no channels, no extra plug-ins, an ephemeral loopback port.
 */
async function throwAwayCopy(rootDir: string): Promise<{ base: string; copy: string }> {
  const base = await mkdtemp(join(tmpdir(), "downcity-replay-"));
  const copy = join(base, "project");
  const { stateDir } = downcityPaths(rootDir);
  await cp(rootDir, copy, {
    recursive: true,
    filter: (source) => relative(stateDir, source).startsWith(".."),
  });
  const configPath = join(copy, "downcity.json");
  const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
  for (const key of ["store", "channels", "plugins"]) delete config[key];
  config.start = { host: "127.0.0.1", port: 0 };
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
  return { base, copy };
}

/**
 * `downcity runs replay --tools live`: executes the run's tool calls for real in a throw-away copy
 * of the project (a daemon of its own, never the project's), the recorded model responses standing
 * in for the model, and compares each tool's output with the recording, normalised.
 */
export async function replayLive(options: {
  records: JournalRecord[];
  rootDir: string;
  env: NodeJS.ProcessEnv;
}): Promise<LiveReplayReport> {
  const { records, rootDir } = options;
  const calls = records.filter(
    (record): record is Of<"model-call"> => record.type === "model-call" && record.purpose === "step",
  );
  const { base, copy } = await throwAwayCopy(rootDir);
  const { createReplayModel } = await import("@downcity/core/internal");
  const { createDaemonClient, ensureToken, runDaemon } = await import("@downcity/daemon");
  const env: Record<string, string | undefined> = { ...options.env, DOWNCITY_HOME: join(base, "home") };
  for (const key of Object.keys(env)) if (key.startsWith("DC_CTX_")) delete env[key];
  const daemon = await runDaemon({
    rootDir: copy,
    env,
    port: 0,
    handleSignals: false,
    plugins: [],
    model: createReplayModel(calls),
  });
  try {
    const client = createDaemonClient({
      host: daemon.host,
      port: daemon.port,
      token: await ensureToken(env),
    });
    const reply = await client.chatSend({ contextId: "cli:replay", text: "(replayed run, live tools)" });
    const live = (await client.run(reply.requestId)).records;
    return compareToolOutputs(records, live, { projects: [rootDir, copy], tmpDir: tmpdir() });
  } finally {
    await daemon.close();
    await rm(base, { recursive: true, force: true });
  }
}

/** The first tool call, in recorded order, whose live output differs from the recorded one. */
export function compareToolOutputs(
  recorded: JournalRecord[],
  live: JournalRecord[],
  roots: { projects: string[]; tmpDir: string },
): LiveReplayReport {
  const ends = (records: JournalRecord[]) =>
    new Map(
      records.flatMap((record) => (record.type === "tool-end" ? [[record.toolCallId, record] as const] : [])),
    );
  const recordedEnds = ends(recorded);
  const liveEnds = ends(live);
  const starts = recorded.filter((record): record is Of<"tool-start"> => record.type === "tool-start");
  const report: LiveReplayReport = {
    identical: true,
    recordedToolCalls: starts.length,
    liveToolCalls: liveEnds.size,
  };
  const outcome = (end: Of<"tool-end"> | undefined) =>
    end === undefined
      ? "(not executed)"
      : normalizeToolOutput(end.error !== undefined ? { error: end.error } : { output: end.output }, roots);
  for (const start of starts) {
    const want = outcome(recordedEnds.get(start.toolCallId));
    const got = outcome(liveEnds.get(start.toolCallId));
    if (JSON.stringify(want) !== JSON.stringify(got))
      return {
        ...report,
        identical: false,
        difference: {
          step: start.step,
          toolCallId: start.toolCallId,
          toolName: start.toolName,
          recorded: want,
          live: got,
        },
      };
  }
  return report;
}
