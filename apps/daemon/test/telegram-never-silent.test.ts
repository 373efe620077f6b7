import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ScriptedCall, ScriptedReply } from "@downcity/core/scripted";
import { isAlive, until } from "@downcity/testkit";
import { describe, expect, test } from "vitest";
import { forumGroupId, lastUserText, useTelegramDaemon } from "./telegram-daemon-world.js";

// End to end: a real detached daemon loads the Telegram adapter by package name and long-polls the fake
// Bot API; the scripted model runs real shell tools.

/** Runs the shell command a message asks for; after a tool result or a finished background job, says so. */
function respond(call: ScriptedCall): ScriptedReply | string {
  const last = call.messages.at(-1);
  if (last?.role === "tool") {
    const previous = [...call.messages].reverse().find((message) => message.text.includes("[tool-call "));
    return previous?.text.includes("[tool-call shell_start") ? "started the build" : "done waiting";
  }
  // A finished background job arrives as the runtime's notice, after the user's words.
  if (last?.text.includes("[shell-exit]")) return "your build finished";
  const text = lastUserText(call);
  const shell = (toolName: string, input: Record<string, unknown>): ScriptedReply => ({
    toolCalls: [{ toolName, input }],
  });
  if (text.includes("please wait")) return shell("shell_exec", { command: "sleep 12" });
  // `exec` makes the shell's pid the sleep's own, so the test can watch the very process.
  if (text.includes("sleep for a while"))
    return shell("shell_exec", { command: "echo $$ > sleeper.pid; exec sleep 30", timeout_ms: 120_000 });
  if (text.includes("build in the background"))
    return shell("shell_start", { command: "sleep 1; echo built", yield_ms: 100 });
  return `echo: ${text}`;
}

describe("telegram through the daemon: never silent (typing, /stop, follow-ups in their topic)", () => {
  const daemon = useTelegramDaemon({ respond });
  const sentTo = (chatId: number) => daemon.fake.sent().filter((sent) => sent.chat_id === String(chatId));
  const typingIn = (chatId: number) =>
    daemon.fake.calls("sendChatAction").filter((call) => call.payload.chat_id === String(chatId));

  test("typing shows within 1 s of the update, is renewed during a 12 s tool run, and stops with the answer", async () => {
    const injectedAt = Date.now();
    daemon.fake.injectMessage({ from: { id: 201 }, text: "please wait" });
    const answer = await until(() => sentTo(201).find((sent) => sent.text === "done waiting"), "the answer", {
      timeoutMs: 60_000,
    });
    const answeredAt = Date.now();
    const typing = typingIn(201);
    expect(typing[0]?.payload).toMatchObject({ action: "typing" });
    expect((typing[0]?.at ?? Number.POSITIVE_INFINITY) - injectedAt).toBeLessThan(1000);
    // Renewed every 4.5 s while `sleep 12` ran: at least three during it.
    expect(typing.filter((call) => call.at < answeredAt).length).toBeGreaterThanOrEqual(3);
    expect(answer.text).toBe("done waiting");
    // One refresh period after the answer, still nothing more: the indicator stopped with the run.
    await until(() => Date.now() - answeredAt > 5000 || undefined, "one refresh period after the answer", {
      timeoutMs: 10_000,
    });
    expect(typingIn(201).filter((call) => call.at > answeredAt)).toEqual([]);
  }, 90_000);

  test("/stop during a `sleep 30` tool run kills it, confirms, and asks the model nothing", async () => {
    daemon.fake.injectMessage({ from: { id: 202 }, text: "sleep for a while" });
    const pidFile = join(daemon.rootDir, "sleeper.pid");
    const pid = await until(
      async () => Number((await readFile(pidFile, "utf8").catch(() => "")).trim()) || undefined,
      "the sleep's pid",
    );
    await until(() => isAlive(pid) || undefined, "the sleep to run");
    const callsBefore = daemon.model.calls.length;
    daemon.fake.injectMessage({ from: { id: 202 }, text: "/stop" });
    await until(() => sentTo(202).find((sent) => sent.text === "Stopped."), "the confirmation");
    await until(() => !isAlive(pid) || undefined, "the sleep to be killed");
    expect(daemon.model.calls.length).toBe(callsBefore);
    expect(daemon.model.calls.some((call) => lastUserText(call).includes("/stop"))).toBe(false);
  }, 60_000);

  test("a background job's follow-up lands in the forum topic the conversation is in", async () => {
    const handle = `@${daemon.fake.bot.username}`;
    daemon.fake.injectMessage({
      chatType: "supergroup",
      chatId: forumGroupId,
      threadId: 77,
      from: { id: 203 },
      text: `${handle} build in the background`,
      entities: [{ type: "mention", offset: 0, length: handle.length }],
    });
    const started = await until(
      () => sentTo(forumGroupId).find((sent) => sent.text === "started the build"),
      "the first answer",
    );
    expect(started.message_thread_id).toBe(77);
    const followUp = await until(
      () => sentTo(forumGroupId).find((sent) => sent.text === "your build finished"),
      "the follow-up after the job exited",
    );
    expect(followUp.message_thread_id).toBe(77);
    // The typing of the follow-up run went to the topic as well.
    const typing = typingIn(forumGroupId);
    expect(typing.length).toBeGreaterThan(0);
    expect(typing.every((call) => call.payload.message_thread_id === 77)).toBe(true);
    expect((await daemon.logs()).includes(daemon.fake.token.split(":")[1] as string)).toBe(false);
  }, 60_000);
});
