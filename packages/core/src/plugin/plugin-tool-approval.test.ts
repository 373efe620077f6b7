import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { expect, it } from "vitest";
import { z } from "zod";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import type { ToolApprovalRequest } from "../run/approval-gated-tools.js";
import { createServiceRegistry } from "../service/service-registry.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { definePlugin } from "./define-plugin.js";
import { setupPlugins } from "./setup-plugins.js";

const temp = useTempDir("downcity-plugin-approval-", "each");

it("a plug-in's tool that declares needsApproval waits for the host's approver like any other", async () => {
  const refunds: number[] = [];
  const billing = definePlugin({
    name: "billing",
    setup: () => ({
      tools: [
        {
          refund: tool({
            description: "Refunds an order",
            inputSchema: z.object({ order: z.number() }),
            // Small refunds go through; larger ones need a person.
            needsApproval: ({ order }) => order > 100,
            execute: async ({ order }) => {
              refunds.push(order);
              return `refunded ${order}`;
            },
          }),
        },
      ],
    }),
  });
  const scripted = createScriptedModel([
    { toolCalls: [{ toolName: "refund", input: { order: 7 } }] },
    "small one done",
    { toolCalls: [{ toolName: "refund", input: { order: 500 } }] },
    (call) => `big one: ${call.messages.at(-1)?.text}`,
  ]);
  const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
  const asked: ToolApprovalRequest[] = [];
  runtime.registerToolApprover(async (request) => {
    asked.push(request);
    return "Tool call refused: an approver (hook:boss) denied refund.";
  });
  await setupPlugins({
    rootDir: temp.path,
    config: { plugins: [], channels: {} },
    runtime,
    registry: createServiceRegistry(),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    plugins: [{ source: "./billing.mjs", plugin: billing }],
  });
  try {
    expect((await runtime.send({ contextId: "hook:1", text: "refund 7" })).text).toBe("small one done");
    const big = await runtime.send({ contextId: "hook:1", text: "refund 500" });
    expect(big.text).toContain("denied refund");
    expect(refunds).toEqual([7]);
    expect(asked.map((request) => request.input)).toEqual([{ order: 500 }]);
  } finally {
    await runtime.close();
  }
});
