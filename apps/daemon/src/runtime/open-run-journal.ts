import { type DowncityStore, openFileRunJournal, type RunJournal } from "@downcity/core";
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
): Promise<{ journal: RunJournal; secrets: string[]; close: () => Promise<void> }> {
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
  if (own)
    await markInterrupted(own).catch((error: unknown) =>
      context.logger.warn({ err: String(error) }, "could not mark interrupted runs"),
    );
  const timer = setInterval(() => void prune(), dayMs);
  timer.unref();
  return {
    journal,
    secrets: journalSecrets(context.config, context.configEnv),
    async close() {
      clearInterval(timer);
      await own?.close();
    },
  };
}

/** Ends the runs a crash left without an end as `interrupted` (a replayed event resumes them). */
async function markInterrupted(journal: RunJournal): Promise<void> {
  for (const run of await journal.list({ status: "running", limit: 10_000 }))
    await journal.append(run.requestId, [
      {
        type: "end",
        at: new Date().toISOString(),
        outcome: "interrupted",
        steps: run.steps,
        usage: run.usage,
      },
    ]);
}
