import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { createAgentRuntime, createUsageLog } from "@downcity/core";
import { daemonComponent } from "../host/daemon-parts.js";
import { createModel, type ModelChoice } from "../runtime/create-model.js";
import { createHistoryFolders } from "../runtime/history-folders.js";
import { openRunJournal, storeInterruptedRuns } from "../runtime/open-run-journal.js";
import { settlingUsageStore } from "../usage/settling-usage-store.js";
import { meteredModel } from "../usage/usage-meter.js";

/**
 * The agent runtime: its model, lanes, histories and run journal. Draining its runs is the `runs`
 * component, which closes before the shell, channels and HTTP those runs still use; its own close
 * waits for the usage records under way and closes the journal, after the runs.
 */
export const runtimeComponent = daemonComponent({
  name: "runtime",
  dependsOn: ["context", "store"],
  async setup({ context, store }) {
    const { config, logger } = context;
    const chosen: ModelChoice = context.model
      ? { model: context.model }
      : await createModel(config.llm, context.configEnv);
    // Every call the daemon makes goes through this model (runs, compaction, plug-ins such as
    // memory), so the usage log counts them all.
    // One name for this process in the run journal, the usage records and the channel host (workers share a store).
    const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    // The shared store's usage when it has one, so `downcity usage` on any worker sums them all.
    // Calls record their usage without waiting; the stop waits for the records under way.
    const usageLog = settlingUsageStore(store?.usage ?? createUsageLog({ rootDir: context.rootDir }));
    const choice = chosen.model
      ? { ...chosen, model: meteredModel(chosen.model, { usageLog, logger, workerId }) }
      : chosen;
    const historyFolders = createHistoryFolders();
    const journal = await openRunJournal(context, store);
    const runtime = createAgentRuntime({
      rootDir: context.rootDir,
      ...(choice.model ? { model: choice.model } : { modelHint: choice.hint }),
      ...(config.lanes ? { maxConcurrency: config.lanes.maxConcurrency } : {}),
      ...(config.run
        ? {
            maxSteps: config.run.maxSteps,
            limits: {
              stepTimeoutMs: config.run.stepTimeoutMs,
              runTimeoutMs: config.run.runTimeoutMs,
              idleTimeoutMs: config.run.idleTimeoutMs,
            },
            ...(config.run.retry ? { modelRetry: { maxMs: config.run.retry.maxMs } } : {}),
          }
        : {}),
      ...(config.history ? { history: config.history } : {}),
      ...(config.llm ? { vision: config.llm.vision } : {}),
      ...(choice.transcription ? { transcription: choice.transcription } : {}),
      logger,
      historyDir: (contextId) => historyFolders.find(contextId),
      ...(store ? { sharedHistory: store.history } : {}),
      closeGraceMs: context.closeGraceMs,
      journal: journal.journal,
      secrets: journal.secrets,
      workerId,
    });
    await storeInterruptedRuns(runtime, journal.journal, journal.interrupted, logger);
    return {
      value: {
        runtime,
        ...(choice.model ? { model: choice.model } : {}),
        historyFolders,
        journal: journal.journal,
        workerId,
        usageLog,
      },
      // After the runs (and the usage component's subscription): their last records are written
      // before the journal closes and before a shared store's pool does.
      close: async () => {
        await usageLog.settled();
        await journal.close();
      },
    };
  },
});
