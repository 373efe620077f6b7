import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRuntime, createChannelHost, silentLogger } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { afterEach, expect, it } from "vitest";
import { chatSendInput } from "./chat-input.js";
import { sendChatMessage } from "./send-chat-message.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A worker on `rootDir`: a runtime over a scripted model and a channel host without channels. */
async function worker(rootDir: string, answers: string[]) {
  const scripted = createScriptedModel(answers);
  const runtime = createAgentRuntime({ rootDir, model: scripted.model });
  const host = await createChannelHost({ rootDir, runtime, channels: [], logger: silentLogger });
  await host.start();
  return {
    scripted,
    send: (input: Record<string, unknown>) => sendChatMessage(host, runtime, chatSendInput.parse(input)),
    close: async () => {
      await host.close();
      await runtime.close();
    },
  };
}

it("answers a send repeated after a restart with the first run's answer, marked as a repeat, without running it again", async () => {
  dir = await mkdtemp(join(tmpdir(), "dc-repeat-"));
  const message = { text: "remember this", contextId: "cli:repeat", messageId: "m-1" };
  const first = await worker(dir, ["The first answer."]);
  const answered = await first.send(message);
  expect(answered).toMatchObject({ status: "answered", result: { text: "The first answer." } });
  await first.close();

  // A new process on the same project: it never saw the run, only what the store holds.
  const second = await worker(dir, ["Not this one."]);
  try {
    const repeat = await second.send(message);
    expect(repeat).toMatchObject({
      status: "answered",
      duplicate: true,
      result: { text: "The first answer.", contextId: "cli:repeat" },
    });
    expect(second.scripted.calls).toHaveLength(0);
    // Without waiting, a repeat is only acknowledged as one.
    expect(await second.send({ ...message, wait: false })).toEqual({
      status: "duplicate",
      messageId: "cli:m-1",
      contextId: "cli:repeat",
    });
  } finally {
    await second.close();
  }
});
