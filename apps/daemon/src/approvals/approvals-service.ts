import { DowncityError, defineService, type ServiceDefinition } from "@downcity/core";
import { z } from "zod";
import type { ApprovalGate } from "./approval-gate-contract.js";
import type { ApprovalStore } from "./approval-store.js";

const codeInput = z.string().trim().min(4).max(6).describe("The code of the request (case-insensitive)");
const viaInput = z
  .enum(["cli", "console"])
  .default("cli")
  .describe("Where the operator answered, recorded as who decided (the web console sets console)");

/**
 * The `approvals` service, for the operator: `downcity approvals list|approve|deny|rules` and the
 * console. Shell sessions' tokens cannot call it (it is not among their services), so the agent
 * can never approve its own commands.
 */
export function createApprovalsService(options: {
  gate: ApprovalGate;
  store: ApprovalStore;
  mode: string;
}): ServiceDefinition {
  const { gate, store } = options;
  const settle = async (code: string, decision: "once" | "always" | "deny", by: "cli" | "console") => {
    const result = await gate.answer({ code, decision, by });
    if (!result.ok) throw new DowncityError("NOT_FOUND", result.message, { field: "code" });
    return { code: code.toUpperCase(), decision, message: result.message };
  };
  return defineService({
    name: "approvals",
    description: "Shell commands waiting for a human: list, approve, deny; the prefixes approved for always",
    actions: {
      list: {
        description: "Pending requests (code, command, folder, chat, expiry) and the last decisions",
        input: z.object({}),
        handler: async () => ({
          mode: options.mode,
          pending: (await store.pending()).map(({ raw: _raw, ...pending }) => pending),
          recent: (await store.decisions({ limit: 10 })).map(({ raw: _raw, ...decision }) => decision),
        }),
      },
      approve: {
        description: "Run a pending command (once, or --always to allow its prefix from now on)",
        input: z.object({
          code: codeInput,
          always: z.boolean().default(false).describe("Also allow the command's prefix from now on"),
          via: viaInput,
        }),
        handler: async (input) => settle(input.code, input.always ? "always" : "once", input.via),
      },
      deny: {
        description: "Refuse a pending command; the agent is told",
        input: z.object({ code: codeInput, via: viaInput }),
        handler: async (input) => settle(input.code, "deny", input.via),
      },
      rules: {
        description:
          "The prefixes approved with always (the store, .downcity/approvals.json by default); --revoke <pattern> removes one",
        input: z.object({
          revoke: z.string().min(1).optional().describe('A stored pattern to remove, e.g. "git push *"'),
        }),
        handler: async (input) => {
          if (input.revoke !== undefined) {
            const revoked = await store.revokeRule(input.revoke);
            const rules = await store.rules();
            if (!revoked)
              throw new DowncityError(
                "NOT_FOUND",
                `No stored rule is "${input.revoke}"; the rules are: ${rules.map((rule) => rule.pattern).join(", ") || "(none)"}`,
                { field: "revoke" },
              );
            return { revoked: input.revoke, rules };
          }
          return { rules: await store.rules() };
        },
      },
    },
  });
}
