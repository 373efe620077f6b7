import { createHmac } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { freePort, until } from "@downcity/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CliRun, runBuiltCli } from "./run-built-cli.js";

const secret = "e2e-secret-0123456789abcdef";

const expectExit = (result: CliRun, code: number) => expect(result.code, result.stderr).toBe(code);
const json = <T>(result: CliRun): T => {
  expectExit(result, 0);
  return JSON.parse(result.stdout) as T;
};

interface Reply {
  idempotencyKey: string;
  chatId: string;
  text: string;
}

describe("channels end to end through the CLI: a webhook channel, default deny, pairing, contacts", () => {
  let home: string;
  let project: string;
  let model: OpenAICompatibleServer;
  let receiver: Server;
  let listenPort: number;
  const replies: Reply[] = [];
  let eventCounter = 0;
  const cli = (args: string[]) => runBuiltCli(args, { cwd: project, env: { DOWNCITY_HOME: home } });
  const post = async (event: Record<string, unknown>) => {
    const body = JSON.stringify({ eventId: `ev-${++eventCounter}`, ...event });
    const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
    const response = await fetch(`http://127.0.0.1:${listenPort}/events`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "x-downcity-signature": signature },
    });
    return response.status;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "downcity-channels-home-"));
    project = await mkdtemp(join(tmpdir(), "downcity-channels-project-"));
    model = await startOpenAICompatibleServer({
      respond: (call) =>
        `echo: ${call.messages.filter((message) => message.role === "user").at(-1)?.text ?? ""}`,
    });
    receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        replies.push(JSON.parse(body) as Reply);
        response.writeHead(200).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    listenPort = await freePort();
    expectExit(await cli(["init", "."]), 0);
    const configPath = join(project, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    config.llm = { provider: "openai-compatible", model: "scripted", baseURL: model.url };
    config.channels = {
      hook: {
        adapter: "@downcity/adapters-webhook",
        listen: { host: "127.0.0.1", port: listenPort },
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/replies`,
        secret: "${HOOK_SECRET}",
      },
    };
    await writeFile(configPath, JSON.stringify(config, null, 2));
    await writeFile(join(project, ".env"), `HOOK_SECRET=${secret}\n`);
    expectExit(await cli(["start", "--json"]), 0);
  });

  afterAll(async () => {
    await runBuiltCli(["stop", project], { env: { DOWNCITY_HOME: home } });
    await model.close();
    await new Promise((resolve) => receiver.close(resolve));
    await rm(home, { recursive: true, force: true });
    await rm(project, { recursive: true, force: true });
  });

  test("a stranger gets one pairing code and no model call; approve lets them in and answers their first message; contacts record them", async () => {
    const channels = json<{ channels: Array<{ name: string; state: string }> }>(
      await cli(["channels", "list", "--json"]),
    );
    expect(channels.channels).toEqual([expect.objectContaining({ name: "hook", state: "connected" })]);

    expect(
      await post({ chatId: "dm-ada", chatType: "direct", userId: "u-ada", username: "ada", text: "hello?" }),
    ).toBe(202);
    const pairing = await until(
      () => replies.find((reply) => reply.chatId === "dm-ada"),
      "the pairing reply",
    );
    const code = /approve ([A-Z2-9]{8})/.exec(pairing.text)?.[1];
    expect(code).toBeDefined();
    expect(
      await post({ chatId: "dm-ada", chatType: "direct", userId: "u-ada", username: "ada", text: "again?" }),
    ).toBe(202);
    expect(model.requests).toHaveLength(0);

    const listed = json<{ channels: Array<{ pending: Array<{ code: string }>; dm: string }> }>(
      await cli(["access", "list", "--json"]),
    );
    expect(listed.channels[0]).toMatchObject({ dm: "pairing", pending: [expect.objectContaining({ code })] });
    const counts = json<{ channels: Array<{ counts: { denied: number; accepted: number } }> }>(
      await cli(["channels", "list", "--json"]),
    );
    expect(counts.channels[0]?.counts).toMatchObject({ denied: 2, accepted: 0 });

    expect(
      json<{ userId: string; channel: string }>(await cli(["access", "approve", code as string, "--json"])),
    ).toMatchObject({
      channel: "hook",
      userId: "u-ada",
      answered: true,
    });
    // Told they are in, and the message that asked is answered (the one sent while waiting is not kept).
    await until(() => replies.find((reply) => reply.text === "echo: hello?"), "the held message's answer");
    expect(
      await post({ chatId: "dm-ada", chatType: "direct", userId: "u-ada", username: "ada", text: "now?" }),
    ).toBe(202);
    await until(() => replies.find((reply) => reply.text === "echo: now?"), "the answer after approval");
    expect(replies.filter((reply) => reply.chatId === "dm-ada").map((reply) => reply.text)).toEqual([
      pairing.text,
      "You're in: the owner approved you. Answering your message now.",
      "echo: hello?",
      "echo: now?",
    ]);

    const contacts = json<{ contacts: Array<{ id: string; username?: string; contextId: string }> }>(
      await cli(["contacts", "list", "--json"]),
    );
    expect(contacts.contacts).toEqual([
      expect.objectContaining({ id: "hook:u-ada", username: "ada", contextId: "hook:dm-ada" }),
    ]);
    const contactsFile = JSON.parse(await readFile(join(project, ".downcity", "contacts.json"), "utf8"));
    expect(contactsFile[0]).toMatchObject({ channel: "hook", userId: "u-ada", chatId: "dm-ada" });
  });

  test("groups need an allow-listed chat and a mention; allow and revoke manage direct access", async () => {
    const before = model.requests.length;
    expect(
      await post({ chatId: "grp", chatType: "group", userId: "u-bob", text: "hi all", mentioned: true }),
    ).toBe(202);
    expect(
      await post({ chatId: "dm-bob", chatType: "direct", userId: "u-bob", fromBot: true, text: "beep" }),
    ).toBe(202);
    expect(model.requests.length).toBe(before);
    expect(replies.filter((reply) => reply.chatId === "grp")).toHaveLength(0);
    // The refused group is listed, allowed with no restart, then revoked.
    const pending = json<{ channels: Array<{ deniedGroups: Array<{ chatId: string }> }> }>(
      await cli(["access", "pending", "--json"]),
    );
    expect(pending.channels[0]?.deniedGroups).toEqual([expect.objectContaining({ chatId: "grp" })]);
    json(await cli(["access", "allow-group", "hook", "grp", "--json"]));
    expect(
      await post({ chatId: "grp", chatType: "group", userId: "u-bob", text: "in now?", mentioned: true }),
    ).toBe(202);
    await until(() => replies.find((reply) => reply.chatId === "grp"), "the group's answer");
    json(await cli(["access", "revoke-group", "hook", "grp", "--json"]));
    expect(
      await post({ chatId: "grp", chatType: "group", userId: "u-bob", text: "still?", mentioned: true }),
    ).toBe(202);

    json(await cli(["access", "allow", "hook", "u-cy", "--json"]));
    expect(await post({ chatId: "dm-cy", chatType: "direct", userId: "u-cy", text: "allowed?" })).toBe(202);
    await until(() => replies.find((reply) => reply.text === "echo: allowed?"), "the allowed user's answer");
    // The revoked group's later message was refused: only its one answer from while it was allowed.
    expect(replies.filter((reply) => reply.chatId === "grp")).toHaveLength(1);
    json(await cli(["access", "revoke", "hook", "u-cy", "--json"]));
    const denied = await cli(["access", "revoke", "hook", "u-cy", "--json"]);
    expectExit(denied, 1);
    expect(denied.stderr).toContain("not approved");
    expect(json<{ entries: unknown[] }>(await cli(["inbox", "list", "--json"])).entries).toEqual([]);
    expect(json<{ entries: unknown[] }>(await cli(["inbox", "list", "--dead", "--json"])).entries).toEqual(
      [],
    );
    expect(json<{ entries: unknown[] }>(await cli(["outbox", "list", "--json"])).entries).toEqual([]);
  });

  test("chat send --no-wait returns once the message is durable; from the agent's own context it never waits", async () => {
    const queued = json<{ messageId: string; contextId: string }>(
      await cli(["chat", "send", "--no-wait", "--context", "cli:queue", "--json", "later please"]),
    );
    expect(queued).toMatchObject({ contextId: "cli:queue", messageId: expect.stringMatching(/^cli:/) });
    await until(
      async () => {
        const history = json<{ messages: Array<{ role: string }> }>(
          await cli(["chat", "history", "--context", "cli:queue", "--json"]),
        );
        return history.messages.length === 2 ? history : undefined;
      },
      "the queued message's reply",
      { intervalMs: 50 },
    );
    const own = await runBuiltCli(["chat", "send", "--json", "note to self"], {
      cwd: project,
      env: { DOWNCITY_HOME: home, DC_CTX_CONTEXT_ID: "cli:own" },
    });
    expect(json<{ contextId: string }>(own)).toMatchObject({ contextId: "cli:own" });
  });
});
