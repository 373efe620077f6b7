import { randomUUID } from "node:crypto";
import {
  type AgentRuntime,
  type DowncityStore,
  errorFields,
  interruptedRunMessage,
  openFileRunJournal,
  type RunJournal,
} from "@downcity/core";
import type { DaemonContext } from "../host/daemon-parts.js";
import { journalSecrets } from "./journal-secrets.js";

const dayMs = 86_400_000;

/**
 * The run journal of the daemon: the shared store's when it has one, else `.downcity/runs/`.
 * Journals older than `runs.retainDays` (30) are pruned at start and then daily; with the file
 * journal, runs a crash cut off are marked `interrupted` at start.
 */
export async function openRunJournal(
  context: DaemonContext,
  store: DowncityStore | undefined,
): Promise<{
  journal: RunJournal;
  secrets: string[];
  /** Runs a crash cut off, marked `interrupted` at this start. */
  interrupted: string[];
  close: () => Promise<void>;
}> {
  const own = store?.journal ? undefined : openFileRunJournal({ rootDir: context.rootDir });
  const journal = store?.journal ?? (own as RunJournal);
  const retainDays = context.config.runs?.retainDays ?? 30;
  const prune = () =>
    journal
      .prune(new Date(Date.now() - retainDays * dayMs))
      .then((removed) => {
        if (removed > 0) context.logger.info({ removed, retainDays }, "pruned old run journals");
      })
      .catch((error: unknown) => context.logger.warn({ err: String(error) }, "could not prune run journals"));
  void prune();
  // One worker serves the file journal: a run it has no end for was cut off by a crash. Marked
  // before the runtime starts, so a resumed attempt's end always comes after.
  const interrupted = own
    ? await markInterrupted(own).catch((error: unknown) => {
        context.logger.warn({ err: String(error) }, "could not mark interrupted runs");
        return [];
      })
    : [];
  const timer = setInterval(() => void prune(), dayMs);
  timer.unref();
  return {
    journal,
    secrets: journalSecrets(context.config, context.configEnv),
    interrupted,
    async close() {
      clearInterval(timer);
      await own?.close();
    },
  };
}

/** Ends the runs a crash left without an end as `interrupted` (a replayed event resumes them); returns their ids. */
async function markInterrupted(journal: RunJournal): Promise<string[]> {
  const running = await journal.list({ status: "running", limit: 10_000 });
  for (const run of running)
    await journal.append(run.requestId, [
      {
        type: "end",
        at: new Date().toISOString(),
        outcome: "interrupted",
        steps: run.steps,
        usage: run.usage,
      },
    ]);
  return running.map((run) => run.requestId);
}

/**
 * Writes the history message of each interrupted run nothing will resume (no channel event started
 * it, so no inbox replays it): its steps and started tool calls, from its journal, so history shows
 * the tools that ran. Runs a replayed event resumes write their own.
 */
export async function storeInterruptedRuns(
  runtime: AgentRuntime,
  journal: RunJournal,
  requestIds: readonly string[],
  logger: DaemonContext["logger"],
): Promise<void> {
  for (const requestId of requestIds) {
    try {
      const records = await journal.read(requestId);
      const message = records && interruptedRunMessage(records, { id: randomUUID(), now: new Date() });
      if (message?.metadata?.contextId) await runtime.history(message.metadata.contextId).append(message);
    } catch (error) {
      logger.warn({ requestId, ...errorFields(error) }, "could not store an interrupted run in history");
    }
  }
}
