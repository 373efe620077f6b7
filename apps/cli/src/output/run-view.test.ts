import { describe, expect, it } from "vitest";
import type { ChatEvent } from "../daemon/load-daemon-api.js";
import { createColors } from "./colors.js";
import { createRunView } from "./run-view.js";
import { formatToolLine } from "./tool-activity-line.js";

const ids = { contextId: "cli:main", requestId: "r1" };

function render(events: ChatEvent[], live: boolean, env: NodeJS.ProcessEnv = { NO_COLOR: "1" }) {
  let output = "";
  const view = createRunView({
    write: (text) => {
      output += text;
    },
    atLineStart: () => output === "" || output.endsWith("\n"),
    colors: createColors({ env, isTTY: true }),
    live,
    replyPrefix: "agent› ",
  });
  for (const event of events) view.handle(event);
  return output;
}

const call = (id: string, command: string): ChatEvent => ({
  type: "tool-call",
  ...ids,
  step: 0,
  toolCallId: id,
  toolName: "shell_exec",
  summary: command,
});
const result = (id: string, durationMs: number, summary?: string, ok = true): ChatEvent => ({
  type: "tool-result",
  ...ids,
  step: 0,
  toolCallId: id,
  toolName: "shell_exec",
  ok,
  durationMs,
  ...(summary ? { summary } : {}),
});

describe("createRunView", () => {
  it("formats a tool line as name, input and outcome", () => {
    expect(
      formatToolLine({
        toolName: "shell_exec",
        summary: "npm test",
        durationMs: 12_340,
        ok: true,
        outcome: "exit 0",
      }),
    ).toBe("⏺ shell_exec  npm test  (12.3 s, exit 0)");
    expect(
      formatToolLine({ toolName: "read", summary: "", durationMs: 200, ok: false, outcome: "no such file" }),
    ).toBe("⏺ read  (0.2 s, failed: no such file)");
  });

  it("on a terminal opens the tool line at the call and completes it at the result", () => {
    const events: ChatEvent[] = [
      { type: "text-delta", ...ids, delta: "Running the tests." },
      call("a", "npm test"),
      result("a", 12_300, "exit 0"),
      { type: "text-delta", ...ids, delta: "All green." },
      {
        type: "run-end",
        ...ids,
        text: "All green.",
        steps: 2,
        usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, totalTokens: 2 },
      },
    ];
    expect(render(events, true)).toBe(
      "agent› Running the tests.\n⏺ shell_exec  npm test  (12.3 s, exit 0)\nagent› All green.\n",
    );
  });

  it("prints whole lines when calls overlap or output is not live, and dims them when colour is on", () => {
    const overlapping = [
      call("a", "make a"),
      call("b", "make b"),
      result("a", 1000, "exit 0"),
      result("b", 2000, "boom", false),
    ];
    expect(render(overlapping, true)).toBe(
      "⏺ shell_exec  make a\n⏺ shell_exec  make b\n⏺ shell_exec  make a  (1.0 s, exit 0)\n⏺ shell_exec  make b  (2.0 s, failed: boom)\n",
    );
    expect(render(overlapping, false)).toBe(
      "⏺ shell_exec  make a  (1.0 s, exit 0)\n⏺ shell_exec  make b  (2.0 s, failed: boom)\n",
    );
    expect(render([call("a", "ls"), result("a", 100, "exit 0")], false, { FORCE_COLOR: "1" })).toBe(
      "\u001b[2m⏺ shell_exec  ls  (0.1 s, exit 0)\u001b[22m\n",
    );
  });

  it("renders streamed Markdown block by block when rendering is on, tool lines between", () => {
    let output = "";
    const view = createRunView({
      write: (text) => {
        output += text;
      },
      atLineStart: () => output === "" || output.endsWith("\n"),
      colors: createColors({ env: { NO_COLOR: "1" }, isTTY: true }),
      live: true,
      replyPrefix: "agent› ",
      render: (markdown) => `[${markdown.trim()}]`,
    });
    view.handle({ type: "text-delta", ...ids, delta: "# Plan\n\n- one" });
    expect(output).toBe("agent› [# Plan]");
    view.handle({ type: "text-delta", ...ids, delta: "\n- two" });
    expect(output).toBe("agent› [# Plan]");
    view.handle(call("a", "npm test"));
    view.handle(result("a", 1000, "exit 0"));
    view.handle({ type: "text-delta", ...ids, delta: "**done**" });
    view.flush();
    expect(output).toBe(
      "agent› [# Plan]\n\n[- one\n- two]\n⏺ shell_exec  npm test  (1.0 s, exit 0)\nagent› [**done**]\n",
    );
    view.printReply("late *note*");
    expect(output.endsWith("agent› [late *note*]\n")).toBe(true);
  });
});
