import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { signWebhookBody } from "@downcity/adapters-webhook";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { freePort, until } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { initProject } from "../src/index.js";
import { startInProcessDaemon } from "./in-process-daemon.js";
import { writeWebhookChannel } from "./install-webhook-adapter.js";
import { createTempWorld } from "./temp-project.js";

const secret = "access-secret-0123456789abcdef";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** The bridge behind the webhook channel: every reply it receives. */
async function startChat() {
  const replies: Array<{ chatId: string; text: string; replyToMessageId?: string }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if (body.type === undefined) replies.push(body);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { replies, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/replies` };
}

describe("access through the webhook channel (real daemon)", () => {
  it("approving a pairing code tells the user and answers their first message; groups are allowed and revoked with no restart", async () => {
    const world = await createTempWorld("dc-access-");
    cleanups.push(world.cleanup);
    const chat = await startChat();
    const model = await startOpenAICompatibleServer({
      respond: (call) => `you said: ${call.messages.at(-1)?.text ?? ""}`,
    });
    cleanups.push(() => model.close());
    const rootDir = world.project();
    await initProject(rootDir, {
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
    });
    const port = await freePort();
    await writeWebhookChannel(rootDir, {
      port,
      url: chat.url,
      secret,
      access: { dm: "pairing", groups: "allowlist", requireMention: false },
    });
    const { daemon, client } = await startInProcessDaemon(rootDir, world.env, undefined);
    cleanups.push(() => daemon.close());
    const post = async (event: Record<string, unknown>) => {
      const body = JSON.stringify(event);
      const response = await fetch(`http://127.0.0.1:${port}/events`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-downcity-signature": signWebhookBody(secret, body),
        },
        body,
      });
      expect(response.status).toBe(202);
    };
    const access = async (action: string, payload: Record<string, unknown>) =>
      (await client.servicesCommand({ service: "access", action, payload })).result as Record<
        string,
        unknown
      >;
    const textsIn = (chatId: string) =>
      chat.replies.filter((reply) => reply.chatId === chatId).map((reply) => reply.text);

    // A stranger's first message gets a pairing code; the message itself is kept, not dropped.
    await post({
      eventId: "s1",
      chatId: "dm-sam",
      chatType: "direct",
      userId: "sam",
      text: "what's the weather?",
    });
    const offer = await until(
      () => textsIn("dm-sam").find((text) => /access approve ([A-Z2-9]{8})/.test(text)),
      "the code",
    );
    const code = /access approve ([A-Z2-9]{8})/.exec(offer)?.[1] as string;
    expect(await access("approve", { code })).toMatchObject({
      channel: "hook",
      userId: "sam",
      answered: true,
    });
    await until(
      () => textsIn("dm-sam").includes("you said: what's the weather?"),
      "the held message answered",
    );
    expect(textsIn("dm-sam")).toEqual([
      offer,
      "You're in: the owner approved you. Answering your message now.",
      "you said: what's the weather?",
    ]);
    expect(chat.replies.at(-1)).toMatchObject({ replyToMessageId: "s1" });

    // A group is refused, listed by name, allowed at once, then revoked at once.
    await post({
      eventId: "g1",
      chatId: "grp-1",
      chatType: "group",
      chatTitle: "Ops room",
      userId: "sam",
      text: "hello?",
    });
    const pending = await until(async () => {
      const state = (await access("pending", {})) as {
        channels: Array<{ deniedGroups: Array<{ chatId: string; title?: string }> }>;
      };
      return state.channels[0]?.deniedGroups[0];
    }, "the refused group");
    expect(pending).toMatchObject({ chatId: "grp-1", title: "Ops room" });
    expect(textsIn("grp-1")).toEqual([]);
    await access("allow-group", { channel: "hook", chatId: "grp-1" });
    await post({ eventId: "g2", chatId: "grp-1", chatType: "group", userId: "sam", text: "now?" });
    // The model echoes the turn (in a group, the runtime labels it with the speaker).
    await until(() => textsIn("grp-1").find((text) => text.endsWith("now?")), "the group answered");
    await access("revoke-group", { channel: "hook", chatId: "grp-1" });
    const answered = textsIn("grp-1").length;
    await post({ eventId: "g3", chatId: "grp-1", chatType: "group", userId: "sam", text: "still there?" });
    await until(async () => {
      const state = (await access("pending", {})) as {
        channels: Array<{ deniedGroups: Array<{ chatId: string; count: number }> }>;
      };
      return state.channels[0]?.deniedGroups.find((group) => group.chatId === "grp-1");
    }, "the group refused again");
    expect(textsIn("grp-1")).toHaveLength(answered);
  });
});
