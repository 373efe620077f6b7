import { readConfigSection } from "@downcity/core";
import {
  type CommandCheck,
  createShellEngine,
  type ShellEngine,
  type ShellStartResult,
} from "@downcity/shell";
import { createShellTools } from "@downcity/shell/ai";
import type { ToolSet } from "ai";
import { shellSection } from "../config/host-sections.js";
import { daemonComponent, type ShellCallback } from "../host/daemon-parts.js";
import { closeRunExecsOnAbort } from "../runtime/close-run-execs.js";
import { createCommandMask } from "../runtime/command-mask.js";
import { journaledShellSessions } from "../runtime/journaled-shell-sessions.js";
import { createSleepInterrupts, reportSleepTick } from "../runtime/sleep-interrupts.js";
import { createProjectCommandCheck } from "../security/create-project-command-check.js";
import { firstRefusal } from "../security/first-refusal.js";
import { shellEnvOptions } from "../security/shell-env-options.js";
import { shellSandboxOptions } from "../security/shell-sandbox-options.js";
import type { ForeignShellCalls } from "../services/shell-service.js";

/**
 * The shell engine and the `shell_*` tools of every run: commands pass the project's policy,
 * `shell_sleep` ends early on a new message for the run's chat, an aborted run closes its execs.
 */
export const shellComponent = daemonComponent({
  name: "shell",
  dependsOn: ["context", "runtime"],
  async setup({ context, runtime: { runtime, journal } }) {
    const { rootDir, env, config, logger } = context;
    const shellConfig = readConfigSection(config, shellSection).value;
    const sandbox = shellSandboxOptions(shellConfig.sandbox, env, rootDir);
    // Read at each spawn, so the port and token issuer filled in later reach every child.
    const callback: ShellCallback = { host: context.listen.host };
    const projectCheck = createProjectCommandCheck({
      rootDir,
      config,
      history: (contextId) => runtime.history(contextId),
      logger,
    });
    // Filled in by later components (approvals); read at every command.
    const checks: CommandCheck[] = [];
    const toolWrappers: Array<(tools: ToolSet, run: { contextId: string }) => ToolSet> = [];
    // Awaited before a start returns (the store's shell affinity pins the chat before the run goes on).
    const afterStart: Array<(started: ShellStartResult) => Promise<void>> = [];
    // Set by the jobs component with a shared store; the shell service routes calls with it.
    const foreign: ForeignShellCalls = {};
    const created = createShellEngine({
      rootDir,
      ...(await shellEnvOptions({ rootDir, config, configEnv: context.configEnv })),
      ...(sandbox ? { sandbox } : {}),
      checkCommand: firstRefusal(() => [projectCheck, ...checks]),
      server: callback,
      ...(shellConfig.maxSessions ? { limits: { maxSessions: shellConfig.maxSessions } } : {}),
    });
    // Each session a run starts goes into its journal (`downcity runs show` lists them).
    const journaled = journaledShellSessions(created, {
      journal,
      mask: createCommandMask(config, context.configEnv),
      logger,
    });
    const engine: ShellEngine = {
      ...journaled,
      async start(input, call) {
        const started = await journaled.start(input, call);
        for (const hook of afterStart) await hook(started);
        return started;
      },
    };
    const sleepInterrupts = createSleepInterrupts({ runtime, onTick: reportSleepTick(runtime, logger) });
    runtime.addTools((run) => {
      closeRunExecsOnAbort({ engine, contextId: run.contextId, abortSignal: run.abortSignal, logger });
      const tools: ToolSet = createShellTools(engine, {
        contextId: run.contextId,
        requestId: run.requestId,
        abortSignal: run.abortSignal,
        sleep: sleepInterrupts.forRun(run),
      });
      return toolWrappers.reduce((wrapped, wrap) => wrap(wrapped, run), tools);
    });
    return {
      value: { engine, callback, checks, toolWrappers, afterStart, foreign },
      close: () => engine.closeAll({ grace_ms: 1000 }),
    };
  },
});
