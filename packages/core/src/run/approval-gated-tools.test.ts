import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { createScriptedModel } from "../test/scripted-model.js";
import type { ScriptedCall } from "../test/scripted-turn.js";
import type { ToolApprovalRequest } from "./approval-gated-tools.js";
import { whileRunWaits } from "./run-hold.js";

const temp = useTempDir("dc-tool-approvals-");

// Calls `deploy` once, then reports what the tool answered (its result or its error).
const callsDeployThenReports = (call: ScriptedCall) => {
  const last = call.messages.at(-1);
  if (last?.role === "tool") return `tool said: ${last.text}`;
  return { toolCalls: [{ toolName: "deploy", input: { target: "prod" } }] };
};

function deployWorld(options: { needsApproval: boolean | ((input: { target: string }) => boolean) }) {
  const runs: string[] = [];
  const scripted = createScriptedModel([], { fallback: callsDeployThenReports });
  const runtime = createAgentRuntime({
    rootDir: temp.path,
    model: scripted.model,
    limits: { stepTimeoutMs: 300 },
    tools: {
      deploy: tool({
        description: "Deploys the shop",
        inputSchema: z.object({ target: z.string() }),
        needsApproval: options.needsApproval,
        execute: async ({ target }) => {
          runs.push(target);
          return `deployed ${target}`;
        },
      }),
    },
  });
  return { runtime, runs, scripted };
}

describe("tools that declare needsApproval", () => {
  it("ask the registered approver before they run; a refusal is the error the model reads", async () => {
    const { runtime, runs } = deployWorld({ needsApproval: true });
    const asked: ToolApprovalRequest[] = [];
    let answer: string | undefined;
    runtime.registerToolApprover(async (request) => {
      asked.push(request);
      return answer;
    });
    try {
      const allowed = await runtime.send({ contextId: "hook:1", text: "ship it" });
      expect(allowed.text).toContain('"deployed prod"');
      expect(runs).toEqual(["prod"]);
      expect(asked[0]).toMatchObject({
        toolName: "deploy",
        input: { target: "prod" },
        contextId: "hook:1",
        requestId: allowed.requestId,
        origin: "user",
      });
      answer = "Tool call refused: an approver denied it.";
      const denied = await runtime.send({ contextId: "hook:1", text: "ship it again" });
      expect(denied.text).toContain("an approver denied it");
      expect(runs).toEqual(["prod"]);
    } finally {
      await runtime.close();
    }
  });

  it("are refused without an approver, and run unasked when needsApproval says no for this input", async () => {
    const refused = deployWorld({ needsApproval: true });
    try {
      const result = await refused.runtime.send({ contextId: "hook:2", text: "ship it" });
      expect(result.text).toContain("this runtime has no approval flow");
      expect(refused.runs).toEqual([]);
    } finally {
      await refused.runtime.close();
    }
    const conditional = deployWorld({ needsApproval: ({ target }) => target !== "prod" });
    let asked = 0;
    conditional.runtime.registerToolApprover(async () => {
      asked++;
      return "no";
    });
    try {
      await conditional.runtime.send({ contextId: "hook:3", text: "ship it" });
      expect(conditional.runs).toEqual(["prod"]);
      expect(asked).toBe(0);
    } finally {
      await conditional.runtime.close();
    }
  });

  it("pause the run while they wait: a wait longer than run.stepTimeoutMs does not abort it", async () => {
    const { runtime, runs } = deployWorld({ needsApproval: true });
    // Answers once three step limits have passed: the person took longer than a step may.
    const slowPerson = () =>
      new Promise<undefined>((resolve) => {
        const started = Date.now();
        const poll = setInterval(() => {
          if (Date.now() - started < 900) return;
          clearInterval(poll);
          resolve(undefined);
        }, 20);
      });
    runtime.registerToolApprover(() => whileRunWaits(slowPerson));
    try {
      const result = await runtime.send({ contextId: "hook:4", text: "ship it" });
      expect(result.aborted).toBeUndefined();
      expect(result.text).toContain('"deployed prod"');
      expect(runs).toEqual(["prod"]);
    } finally {
      await runtime.close();
    }
    // The same wait outside whileRunWaits is what the step limit is for: the run is stopped.
    const unpaused = deployWorld({ needsApproval: true });
    unpaused.runtime.registerToolApprover(slowPerson);
    try {
      const result = await unpaused.runtime.send({ contextId: "hook:5", text: "ship it" });
      expect(result.aborted?.reason).toBe("step-timeout");
    } finally {
      await unpaused.runtime.close();
    }
  });
});
