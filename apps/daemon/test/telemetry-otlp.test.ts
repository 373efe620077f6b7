import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { freePort, signBody, startSignedReceiver, until } from "@downcity/testkit";
import { afterAll, describe, expect, inject, it } from "vitest";
import { initProject, startDaemonDetached, stopDaemon } from "../src/index.js";
import { readDaemonLog } from "./daemon-log.js";
import { installWebhookAdapter, writeWebhookChannel } from "./install-webhook-adapter.js";
import { type ReceivedSpan, startOtlpReceiver } from "./otlp-receiver.js";
import { createTempWorld } from "./temp-project.js";

const secret = "telemetry-secret-0123456789abcdef";
const sign = (body: string) => signBody(secret, body);

/** The bridge behind the webhook channel: it collects the replies the agent sends, their signatures checked. */
async function startChat() {
  const receiver = await startSignedReceiver<{ text: string }>({ secret });
  return {
    get texts() {
      return receiver.received.map((reply) => reply.text);
    },
    url: receiver.url,
    close: receiver.close,
  };
}

describe("OpenTelemetry export from a real daemon", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  /** Runs one turn with a shell tool call through the webhook channel and returns what the receiver got. */
  async function runTurn(content: boolean) {
    const world = await createTempWorld("dc-telemetry-");
    cleanups.push(world.cleanup);
    const rootDir = world.project();
    const [chat, receiver] = [await startChat(), await startOtlpReceiver()];
    cleanups.push(chat.close, receiver.close);
    // The model runs the command the user names, then reports what the tool answered.
    const model = await startOpenAICompatibleServer({
      respond: (call) => {
        const last = call.messages.at(-1);
        if (last?.role === "tool") return `tool said: ${last.text}`;
        const command = /^run: (.+)$/m.exec(last?.text ?? "")?.[1];
        return command ? { toolCalls: [{ toolName: "shell_exec", input: { command } }] } : "ok";
      },
    });
    cleanups.push(() => model.close());
    cleanups.push(() => stopDaemon({ rootDir, graceMs: 1000 }));
    await initProject(rootDir, {
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
    });
    const port = await freePort();
    await writeWebhookChannel(
      rootDir,
      { port, url: chat.url, secret, access: { dm: "open" } },
      {
        telemetry: {
          otlp: { url: receiver.url, headers: { authorization: "Bearer ${OTLP_TOKEN}" }, content },
        },
      },
    );
    await writeFile(join(rootDir, ".env"), "OTLP_TOKEN=otlp-token-4711\n");
    await installWebhookAdapter(rootDir);
    const daemon = await startDaemonDetached({
      rootDir,
      env: world.env,
      entry: inject("daemonEntry"),
      timeoutMs: 30_000,
    });

    const body = JSON.stringify({
      eventId: "e1",
      chatId: "chat-1",
      chatType: "direct",
      userId: "alice",
      text: "run: echo telemetry-marker-$((40+2))",
    });
    await until(
      async () =>
        (
          await fetch(`http://127.0.0.1:${port}/events`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-downcity-signature": sign(body) },
            body,
          }).catch(() => undefined)
        )?.ok === true,
      "the event accepted",
    );
    await until(() => chat.texts.some((text) => text.startsWith("tool said:")), "the answer delivered");
    // Stopping the daemon closes its telemetry, which flushes the batched spans.
    await stopDaemon({ rootDir, graceMs: 5000 });
    await until(
      () =>
        receiver.spans.some((span) => span.name === "send hook") &&
        receiver.spans.some((span) => span.attributes["gen_ai.operation.name"] === "invoke_agent"),
      () =>
        `the delivery and run spans (received: ${receiver.spans.map((span) => span.name).join(", ") || "nothing"})`,
    ).catch(async (error: unknown) => {
      // Say what the daemon logged about telemetry, and its warnings and errors.
      const lines = await readDaemonLog(rootDir, daemon.pid);
      throw new Error(
        `${String(error)}; daemon log: ${JSON.stringify(lines.filter((line) => line.level !== "info" || /telemetry/.test(String(line.msg))))}`,
      );
    });
    const log = await readDaemonLog(rootDir, daemon.pid);
    expect(log.some((line) => line.msg === "telemetry export on")).toBe(true);
    return { receiver, log: JSON.stringify(log) };
  }

  const only = (spans: ReceivedSpan[], predicate: (span: ReceivedSpan) => boolean) => {
    const found = spans.filter(predicate);
    expect(found).toHaveLength(1);
    return found[0] as ReceivedSpan;
  };

  it("exports the run, its model calls, its tool call and the delivery, without message content", async () => {
    const { receiver, log } = await runTurn(false);
    const { spans } = receiver;
    const root = only(spans, (span) => span.attributes["gen_ai.operation.name"] === "invoke_agent");
    expect(root.parentSpanId || undefined).toBeUndefined();
    expect(root.resource["service.name"]).toBe("downcity");
    expect(root.attributes).toMatchObject({
      "gen_ai.conversation.id": expect.stringContaining("chat-1"),
      "gen_ai.provider.name": "openai-compatible",
      "gen_ai.request.model": "scripted",
    });
    const inRun = spans.filter((span) => span !== root);
    for (const span of inRun) {
      expect(span.traceId).toBe(root.traceId);
      expect(span.parentSpanId).toBe(root.spanId);
    }
    const chats = inRun.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
    expect(chats).toHaveLength(2);
    expect(chats.map((span) => span.attributes["gen_ai.response.finish_reasons"])).toEqual([
      ["tool-calls"],
      ["stop"],
    ]);
    for (const span of chats) {
      expect(span.name).toBe("chat scripted");
      // The scripted server reports no usage: the counts are there, as zeros.
      expect(span.attributes["gen_ai.usage.input_tokens"]).toBe(0);
      expect(span.attributes["gen_ai.usage.output_tokens"]).toBe(0);
    }
    const tool = only(inRun, (span) => span.attributes["gen_ai.operation.name"] === "execute_tool");
    expect(tool.name).toBe("execute_tool shell_exec");
    expect(tool.attributes["gen_ai.tool.name"]).toBe("shell_exec");
    expect(tool.attributes["gen_ai.tool.call.id"]).toEqual(expect.any(String));
    expect(tool.status.code ?? 0).not.toBe(2);
    const send = only(inRun, (span) => span.name === "send hook");
    expect(send.attributes).toMatchObject({
      "downcity.delivery.outcome": "sent",
      "downcity.channel": "hook",
    });
    // No content: neither the command, nor its output, nor the answer went out.
    expect(receiver.raw.join("")).not.toContain("telemetry-marker");
    expect(receiver.raw.join("")).not.toContain("gen_ai.tool.call.arguments");
    // The header's ${VAR} was resolved from .env, and the token was never logged.
    expect(receiver.headers[0]?.authorization).toBe("Bearer otlp-token-4711");
    expect(log).not.toContain("otlp-token-4711");
  }, 90_000);

  it("puts tool input and output and the answer on the spans with content: true", async () => {
    const { receiver } = await runTurn(true);
    const tool = only(receiver.spans, (span) => span.attributes["gen_ai.operation.name"] === "execute_tool");
    expect(String(tool.attributes["gen_ai.tool.call.arguments"])).toContain(
      "echo telemetry-marker-$((40+2))",
    );
    expect(String(tool.attributes["gen_ai.tool.call.result"])).toContain("telemetry-marker-42");
    const root = only(receiver.spans, (span) => span.attributes["gen_ai.operation.name"] === "invoke_agent");
    expect(String(root.attributes["gen_ai.output.messages"])).toContain("tool said:");
    const chats = receiver.spans.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
    expect(
      chats.some((span) => String(span.attributes["gen_ai.output.messages"]).includes("shell_exec")),
    ).toBe(true);
  }, 90_000);
});
