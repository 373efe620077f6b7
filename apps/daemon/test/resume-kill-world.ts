import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { freePort, postSigned, startSignedReceiver, until } from "@downcity/testkit";
import { type DaemonClient, daemonStatus, stopDaemon } from "../src/index.js";
import { installWebhookAdapter, writeWebhookChannel } from "./install-webhook-adapter.js";
import { startScriptedDetachedDaemon } from "./scripted-detached-daemon.js";
import { createTempWorld } from "./temp-project.js";

const secret = "resume-kill-secret-0123456789abcdef";

/** A reply as the webhook channel POSTs it to the platform. */
export interface WebhookReply {
  idempotencyKey: string;
  chatId: string;
  text: string;
  replyToMessageId?: string;
}

/** What the scripted model and the kill condition see: the restart, the marker file, the replies refused so far. */
export interface KillState {
  restarted: boolean;
  marker: string;
  rootDir: string;
  /** Reply posts the platform refused (503) before the restart. */
  refused: number;
}

/** Every record of the project's only run journal (`.downcity/runs/<date>/<requestId>.jsonl`). */
export async function journalOf(rootDir: string): Promise<Array<Record<string, unknown>>> {
  const runsDir = join(rootDir, ".downcity", "runs");
  const [date] = await readdir(runsDir);
  const [file] = await readdir(join(runsDir, date ?? ""));
  const text = await readFile(join(runsDir, date ?? "", file ?? ""), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The lines of a marker file (none when it does not exist). */
export const lines = async (path: string) =>
  (await readFile(path, "utf8").catch(() => "")).split("\n").filter(Boolean);

export const textOf = (message: { parts: Array<{ type: string; text?: string }> }) =>
  message.parts.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");

/**
 * A real daemon with a webhook channel over a scripted model: one chat message is posted as a
 * platform would, the daemon is SIGKILLed once `killWhen` holds, restarted, and left to finish the
 * replayed event. Replies reach a signed receiver on loopback (the user's side); with
 * `refuseRepliesUntilRestart` it answers 503 to every reply before the restart, as a platform
 * that was down. Returns what the user received, the history and the journal after a graceful stop.
 */
export async function killAndResume(options: {
  name: string;
  cleanups: Array<() => Promise<unknown>>;
  respond: (call: ScriptedCall, state: KillState) => Promise<ScriptedReply>;
  killWhen: (state: KillState) => Promise<boolean> | boolean;
  refuseRepliesUntilRestart?: boolean;
  /** Runs after the kill, before the restart. */
  beforeRestart?: () => Promise<void>;
  /** The reply that ends the run (waited for after the restart). */
  answer: string;
}) {
  const world = await createTempWorld(`dc-resume-${options.name}-`);
  options.cleanups.push(world.cleanup);
  const rootDir = world.project();
  const state: KillState = { restarted: false, marker: join(world.base, "marker.txt"), rootDir, refused: 0 };
  const receiver = await startSignedReceiver<WebhookReply>({
    secret,
    refuse: () => {
      if (!options.refuseRepliesUntilRestart || state.restarted) return false;
      state.refused++;
      return true;
    },
  });
  options.cleanups.push(receiver.close);
  const model = await startOpenAICompatibleServer({ respond: (call) => options.respond(call, state) });
  options.cleanups.push(() => model.close());
  const start = await startScriptedDetachedDaemon({
    rootDir,
    env: world.env,
    modelUrl: model.url,
    cleanups: options.cleanups,
  });
  const port = await addWebhookChannel(rootDir, receiver.url);
  const { daemon: first } = await start();
  const eventId = `evt-${options.name}`;
  const body = JSON.stringify({
    eventId,
    chatId: "c1",
    chatType: "direct",
    userId: "u1",
    text: "mark it once",
  });
  const accepted = await postSigned(port, body, secret);
  if (accepted?.status !== 202) throw new Error(`the event was not accepted: ${JSON.stringify(accepted)}`);
  await until(() => options.killWhen(state), "the moment to kill");
  process.kill(first.pid, "SIGKILL");
  await until(
    async () => !(await daemonStatus({ rootDir })).running || undefined,
    "the killed daemon to be gone",
  );
  await options.beforeRestart?.();
  state.restarted = true;
  const { client } = await start();
  await until(
    () => receiver.received.some((reply) => reply.text === options.answer),
    "the resumed run's answer",
  );
  const records = await until(async () => {
    const journal = await journalOf(rootDir);
    return journal.at(-1)?.type === "end" && journal.at(-1)?.outcome !== "interrupted" ? journal : undefined;
  }, "the journal's last end");
  const history = await historyOf(client, "hook:c1");
  // A graceful stop finishes in-flight sends: nothing reaches the user after it.
  await stopDaemon({ rootDir, graceMs: 5000 });
  const replies = receiver.received.filter((reply) => reply.replyToMessageId === eventId);
  return { marker: state.marker, replies, history, records, eventId, modelCalls: model.calls.length };
}

/** Adds the webhook channel `hook` (replies to `url`) to the project and installs its adapter; returns its port. */
async function addWebhookChannel(rootDir: string, url: string): Promise<number> {
  const port = await freePort();
  await writeWebhookChannel(rootDir, { port, url, secret, access: { dm: "open", groups: "open" } });
  await installWebhookAdapter(rootDir);
  return port;
}

async function historyOf(client: DaemonClient, contextId: string) {
  return (await client.chatHistory({ contextId, last: 100 })).messages;
}

/**
 * Takes the history lock of the project's only chat, as another process appending to it would (a
 * live pid holds it; it waits while the daemon keeps the lock a moment after its own append): the
 * daemon then waits to store the run's answer. Returns its release.
 */
export async function holdHistoryLock(rootDir: string): Promise<() => Promise<void>> {
  const contexts = join(rootDir, ".downcity", "context");
  const [folder] = await readdir(contexts);
  const lockPath = join(contexts, folder ?? "", "messages", "messages.lock");
  const holder = {
    pid: process.pid,
    startTime: null,
    nonce: "test-holder",
    acquiredAt: new Date().toISOString(),
  };
  await until(
    () =>
      writeFile(lockPath, JSON.stringify(holder), { flag: "wx" }).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === "EEXIST") return false;
          throw error;
        },
      ),
    "the chat's history lock to be free",
    10_000,
  );
  return () => rm(lockPath, { force: true });
}
