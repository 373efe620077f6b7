import { createScriptedModel } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { useTelegramHostWorld } from "./test/telegram-host.js";
import { useFakeTelegramAdapter } from "./test/use-fake-telegram-adapter.js";

const world = useTelegramHostWorld("downcity-tg-typing-");
const bed = useFakeTelegramAdapter();

describe("telegram typing while a run is in progress", () => {
  it("shows typing within 1 s of the update, renews it during a 12 s tool run, and sends none after the answer", async () => {
    const { root, server } = await world.create();
    let toolDone = 0;
    // A tool that runs for 12 s, as a long shell command would.
    const slowTool = {
      wait: {
        description: "Waits twelve seconds",
        inputSchema: z.object({}),
        execute: async () => {
          await new Promise((resolve) => setTimeout(resolve, 12_000));
          toolDone = Date.now();
          return { waited: true };
        },
      },
    };
    await world.start({
      rootDir: root,
      server,
      tools: slowTool,
      model: createScriptedModel([{ toolCalls: [{ toolName: "wait", input: {} }] }, "done waiting"]).model,
    });
    const injectedAt = Date.now();
    server.injectMessage({ text: "please wait", from: { id: 7 } });
    await until(() => server?.sent().length === 1 || undefined, "the answer", { timeoutMs: 30_000 });
    const answeredAt = Date.now();
    const typing = server.calls("sendChatAction");
    expect(typing[0]?.payload).toMatchObject({ chat_id: "7", action: "typing" });
    expect((typing[0]?.at ?? Number.POSITIVE_INFINITY) - injectedAt).toBeLessThan(1000);
    // Renewed every 4.5 s while the tool ran: at least twice more within its 12 s.
    expect(typing.filter((call) => call.at < toolDone).length).toBeGreaterThanOrEqual(3);
    // Past the next refresh, nothing more: the indicator stopped with the run.
    await until(() => Date.now() - answeredAt > 5000 || undefined, "one refresh period after the answer", {
      timeoutMs: 10_000,
    });
    const last = server.calls("sendChatAction").at(-1);
    expect(last?.at ?? 0).toBeLessThan(answeredAt);
  }, 60_000);
});

describe("telegram typing in forum topics", () => {
  it("targets the topic with message_thread_id, and the chat alone without one", async () => {
    const telegram = await bed.adapter();
    expect(telegram.typing?.refreshMs).toBe(4500);
    await telegram.typing?.start({ chatId: "-1001234567890", threadId: "88", replyToMessageId: "3" });
    await telegram.typing?.start({ chatId: "42" });
    expect(bed.fake.calls("sendChatAction").map((call) => call.payload)).toEqual([
      { chat_id: "-1001234567890", action: "typing", message_thread_id: 88 },
      { chat_id: "42", action: "typing" },
    ]);
  });
});
