import { homedir } from "node:os";
import { errorFields, readConfigSection } from "@downcity/core";
import { createBashCommandParser } from "@downcity/skills";
import { daemonComponent } from "../host/daemon-parts.js";
import { createCommandMask } from "../runtime/command-mask.js";
import { workerLeaseKey } from "../store/background-jobs.js";
import { downcityHome } from "../token/downcity-home.js";
import { approvalActionHandler } from "./approval-buttons.js";
import { approvalChatCommands } from "./approval-chat-command.js";
import { createApprovalGate } from "./approval-gate.js";
import { openApprovalStore } from "./approval-store.js";
import { approvalsSection } from "./approvals-section.js";
import { createChatNotices } from "./chat-notices.js";
import { defaultApprovers } from "./default-approvers.js";
import { approvedToolOrphanText, createToolApprover } from "./tool-approval.js";

/**
 * Approvals (`approvals` in downcity.json): the gate every shell command of a run passes after the
 * skills' check, the `/approve` and `/deny` chat commands and the buttons of requests (both answered
 * by the channel host, with no model call), and the requests a previous daemon
 * left pending. The channel host is handed a runtime view that lets notices reach its chats.
 */
export const approvalsComponent = daemonComponent({
  name: "approvals",
  dependsOn: ["context", "runtime", "shell", "store"],
  async setup({ context, runtime: { runtime, journal, workerId }, shell, store: shared }) {
    const { rootDir, config, logger, env } = context;
    const section = readConfigSection(config, approvalsSection).value;
    const notices = createChatNotices(runtime);
    // A shared store shares requests, decisions and rules: /approve on any worker reaches the run that waits.
    const store = openApprovalStore(rootDir, shared);
    const mask = createCommandMask(config, context.configEnv);
    const gate = createApprovalGate({
      places: { rootDir, home: env.HOME ?? homedir(), downcityHome: downcityHome(env) },
      config: section,
      approvers: section.approvers.length > 0 ? section.approvers : defaultApprovers(config),
      store,
      workerId,
      ...(shared?.events ? { events: shared.events } : {}),
      ...(shared
        ? {
            workerAlive: async (worker: string) =>
              (await shared.leases.holder(workerLeaseKey(worker))) !== undefined,
          }
        : {}),
      parser: createBashCommandParser(),
      logger,
      route: (contextId) => notices.route(contextId),
      notify: (route, contextId, key, text, actions) => notices.notify(route, contextId, key, text, actions),
      mask,
      edit: (key, text, known) => notices.edit(key, text, known),
      // Every request and decision goes into the journal of the run that asked.
      journal: (requestId, record) =>
        journal.append(requestId, [{ type: "approval", at: new Date().toISOString(), ...record }]),
      async runOrphan(pending) {
        // A tool call's request outlived its run: nothing runs now; the resumed run's same call passes once.
        if (pending.tool) {
          if (pending.route)
            await notices
              .notify(
                pending.route,
                pending.contextId,
                `approval:${pending.code}:orphan-result`,
                approvedToolOrphanText(pending),
              )
              .catch((error) =>
                logger.warn(errorFields(error), "could not post an approved tool call's notice"),
              );
          return;
        }
        // The run that asked is gone (a restart): the approved command runs once, on its own.
        const result = await shell.engine
          .exec(
            { command: pending.raw, cwd: pending.cwd, tty: pending.tty },
            { contextId: pending.contextId },
          )
          .catch((error: unknown) => ({ status: "failed", exit_code: null, output: String(error) }));
        if (!pending.route) return;
        const output = mask(result.output).slice(-1500);
        await notices
          .notify(
            pending.route,
            pending.contextId,
            `approval:${pending.code}:orphan-result`,
            `Ran ${pending.command} (approved after the run that asked was interrupted): ${result.status}${result.exit_code !== null ? `, exit ${result.exit_code}` : ""}${output ? `\n${output}` : ""}`,
          )
          .catch((error) => logger.warn(errorFields(error), "could not post an approved command's result"));
      },
    });
    shell.checks.push((request) => gate.check(request));
    // MCP and plug-in tools that declare needsApproval go through the same gate.
    const stopApprovingTools = runtime.registerToolApprover(
      createToolApprover({
        gate,
        config: section,
        store,
        rootDir,
        mask,
        route: (contextId) => notices.route(contextId),
      }),
    );
    await gate.recover();
    return {
      value: {
        gate,
        store,
        mode: section.mode,
        runtimeForChannels: notices.runtime,
        chatCommands: approvalChatCommands(gate),
        chatActions: [approvalActionHandler(gate)],
        useChannelHost(host) {
          notices.useChannelHost(host);
          host.onButtonsSent((key, sent) => gate.requestSent(key, sent));
        },
      },
      close: () => {
        stopApprovingTools();
        gate.close();
      },
    };
  },
});
