import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { type DaemonClient, daemonStatus, stopDaemon } from "../src/index.js";
import { readDaemonLog } from "./daemon-log.js";
import { startScriptedDetachedDaemon } from "./scripted-detached-daemon.js";
import { createTempWorld } from "./temp-project.js";

interface Snapshot {
  status: string;
  exit_event: { emitted: boolean; delivered: boolean };
}

/** Opens a FIFO for writing without blocking: ENXIO until the job's `cat` has it open for reading. */
async function releaseFifo(path: string): Promise<void> {
  const handle = await until(
    () =>
      open(path, constants.O_WRONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENXIO") return undefined;
        throw error;
      }),
    `a reader on ${path}`,
  );
  await handle.write("go\n");
  await handle.close();
}

const textOf = (message: { parts: Array<{ type: string; text?: string }> }) =>
  message.parts.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");

describe("SIGKILL while messages are sent and shell jobs are pending, then restart", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it("keeps every acknowledged message, marks the running job lost, replays the held follow-up from the inbox, each followed up exactly once", async () => {
    const world = await createTempWorld("dc-crash-");
    cleanups.push(world.cleanup);
    const rootDir = world.project();
    // Two jobs held open by FIFOs: "lost" is still running at the kill; "replayed" is released
    // first and has exited, but its follow-up run hangs in the model (its exit is acknowledged: the
    // follow-up is an inbox event by then, and the inbox replays it after the crash).
    const fifos = { lost: join(world.base, "lost.fifo"), replayed: join(world.base, "replayed.fifo") };
    execFileSync("mkfifo", [fifos.lost, fifos.replayed]);

    let holdFollowUps = true;
    let followUpHeld: (text: string) => void = () => {};
    const heldFollowUp = new Promise<string>((resolve) => {
      followUpHeld = resolve;
    });
    let releaseHeld: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      releaseHeld = resolve;
    });
    const model = await startOpenAICompatibleServer({
      respond: async (call: ScriptedCall): Promise<ScriptedReply> => {
        const last = call.messages.at(-1);
        const text = last?.text ?? "";
        if (last?.role === "tool") return { text: `started ${String(JSON.parse(text).shell_id)}` };
        const job = /^start job (lost|replayed)$/.exec(text)?.[1] as keyof typeof fifos | undefined;
        if (job) {
          return {
            toolCalls: [{ toolName: "shell_start", input: { command: `cat '${fifos[job]}'`, yield_ms: 50 } }],
          };
        }
        if (text.includes("[shell-exit]")) {
          const shellId = /Shell session (\S+)/.exec(text)?.[1] ?? "?";
          if (holdFollowUps) {
            followUpHeld(shellId);
            await released;
          }
          return { text: `noted the end of ${shellId}` };
        }
        return { text: "noted, thanks", chunkSize: 3, delayMs: 5 };
      },
    });
    cleanups.push(() => model.close());
    cleanups.push(async () => releaseHeld());
    const start = await startScriptedDetachedDaemon({
      rootDir,
      env: world.env,
      modelUrl: model.url,
      cleanups,
    });
    const { daemon: first, client } = await start();

    const startJob = async (job: keyof typeof fifos) => {
      const reply = await client.chatSend({ contextId: `console:job-${job}`, text: `start job ${job}` });
      return /^started (\S+)$/.exec(reply.text)?.[1] as string;
    };
    const lostId = await startJob("lost");
    const replayedId = await startJob("replayed");
    expect(lostId).toMatch(/^sh_/);
    expect(replayedId).toMatch(/^sh_/);
    const snapshot = async (shellId: string) =>
      JSON.parse(
        await readFile(join(rootDir, ".downcity", "shell", shellId, "snapshot.json"), "utf8"),
      ) as Snapshot;

    await releaseFifo(fifos.replayed);
    expect(await heldFollowUp).toBe(replayedId);
    // The exit is emitted before its snapshot write settles: wait for the final status on disk.
    await until(async () => (await snapshot(replayedId)).status === "exited", "the exited snapshot");
    await until(async () => (await snapshot(replayedId)).exit_event.delivered, "the exit acknowledged");
    expect((await snapshot(replayedId)).exit_event).toMatchObject({ emitted: true, delivered: true });
    expect((await snapshot(lostId)).status).toBe("running");

    // Six senders keep sending, each on its own context, until the daemon dies under them; the kill
    // comes after a few acknowledgments (not after a fixed delay, which a loaded machine outruns).
    const acknowledged: Array<{ contextId: string; text: string }> = [];
    const failed: string[] = [];
    let sequence = 0;
    const sender = async (lane: number) => {
      const contextId = `console:crash-${lane}`;
      for (;;) {
        const index = sequence++;
        const text = `message number ${index}`;
        try {
          await client.chatSend({ contextId, text, messageId: `m-${index}` });
          acknowledged.push({ contextId, text });
        } catch (error) {
          failed.push((error as Error).message);
          return;
        }
      }
    };
    const sends = Array.from({ length: 6 }, (_, lane) => sender(lane));
    await until(() => acknowledged.length >= 6, "six acknowledged messages");
    process.kill(first.pid, "SIGKILL");
    await Promise.all(sends);
    expect(failed.length).toBeGreaterThan(0);
    holdFollowUps = false;
    releaseHeld();

    // SIGKILL is delivered asynchronously: the dying process can still be listed for a moment.
    const afterKill = await until(async () => {
      const status = await daemonStatus({ rootDir });
      return status.running ? undefined : status;
    }, "the killed daemon to be gone");
    expect(afterKill).toMatchObject({ running: false, staleCleaned: true, pid: first.pid });

    const { daemon: second, client: again } = await start();
    // Recovery runs before the daemon reports healthy and logs what it found.
    const recovered = await until(
      async () =>
        (await readDaemonLog(rootDir, second.pid)).find((line) => line.msg === "shell sessions recovered"),
      "the recovery log line",
    );
    // The replayed job's exit was acknowledged once its follow-up was in the inbox: the engine replays nothing.
    expect(recovered).toMatchObject({ lost: [lostId], replayed: [] });

    for (const { contextId, text } of acknowledged) {
      const { messages } = await again.chatHistory({ contextId, last: 1000 });
      expect(messages.map(textOf), `${contextId}: ${text}`).toContain(text);
    }

    // Recovery is done once both exits are acknowledged: their follow-ups are in the inbox by then,
    // and in history once their runs have stored them.
    await until(
      async () =>
        (await snapshot(lostId)).exit_event.delivered && (await snapshot(replayedId)).exit_event.delivered,
      "both exits acknowledged",
    );
    expect((await snapshot(lostId)).status).toBe("lost");
    const notices = async (client: DaemonClient, job: keyof typeof fifos) =>
      (await client.chatHistory({ contextId: `console:job-${job}`, last: 1000 })).messages.filter(
        (message) => message.metadata?.origin === "internal",
      );
    const noticesOf = (job: keyof typeof fifos) =>
      until(async () => {
        const found = await notices(again, job);
        return found.length > 0 ? found : undefined;
      }, `the ${job} job's follow-up in history`);
    const lostNotices = await noticesOf("lost");
    expect(lostNotices).toHaveLength(1);
    expect(textOf(lostNotices[0] as never)).toContain(`[shell-exit] Shell session ${lostId}`);
    expect(textOf(lostNotices[0] as never)).toContain("ended (lost)");
    const replayedNotices = await noticesOf("replayed");
    expect(replayedNotices).toHaveLength(1);
    expect(textOf(replayedNotices[0] as never)).toContain(`[shell-exit] Shell session ${replayedId}`);

    await stopDaemon({ rootDir, graceMs: 5000 });
    const { daemon: third, client: last } = await start();
    // "daemon listening" is logged after recovery: once it is in the log, a recovery line would be too.
    const thirdLog = await until(async () => {
      const lines = await readDaemonLog(rootDir, third.pid);
      return lines.some((line) => line.msg === "daemon listening") ? lines : undefined;
    }, "the third daemon's listening line");
    expect(thirdLog.filter((line) => line.msg === "shell sessions recovered")).toEqual([]);
    expect(await notices(last, "lost")).toHaveLength(1);
    expect(await notices(last, "replayed")).toHaveLength(1);
    await stopDaemon({ rootDir, graceMs: 5000 });
  }, 60000);
});
