import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { validateProjectConfig } from "./validate-project-config.js";

let root: string;
const servers: Server[] = [];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-validate-"));
});
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
  await rm(root, { recursive: true, force: true });
});

const model = { provider: "openai-compatible", model: "m", baseURL: "http://127.0.0.1:9/v1" };
const write = (config: unknown) => writeFile(join(root, "downcity.json"), JSON.stringify(config, null, 2));
const validate = (checkPorts = false) =>
  validateProjectConfig({ rootDir: root, env: {}, plugins: [], checkPorts });

async function heldPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return (server.address() as { port: number }).port;
}

describe("validateProjectConfig", () => {
  it("finds nothing wrong with a sound project", async () => {
    await write({ llm: model, start: { port: 0 } });
    expect((await validate(true)).problems).toEqual([]);
  });

  it("lists every problem in one pass: unknown section with a suggestion, host section, channel, model key", async () => {
    await write({
      llm: { provider: "openai", model: "gpt-4.1-mini" },
      chanels: {},
      start: { prot: 1 },
      channels: { tg: { adapter: "@downcity/adapters-telegram", token: "" } },
    });
    const { problems } = await validate();
    const byField = Object.fromEntries(problems.map((problem) => [problem.field, problem]));
    expect(byField.chanels).toMatchObject({
      kind: "config",
      message: expect.stringContaining('did you mean "channels"'),
    });
    expect(byField["start.prot"]).toMatchObject({
      kind: "config",
      message: expect.stringContaining('"port"'),
    });
    expect(byField["channels.tg.token"]).toMatchObject({ kind: "channel" });
    expect(byField["llm.apiKey"]).toMatchObject({
      kind: "model",
      message: expect.stringContaining("OPENAI_API_KEY"),
    });
  });

  it("still checks the other sections when core's fail", async () => {
    await write({ llm: { ...model, baseUrl: "x" }, chanels: {}, start: { prot: 1 } });
    const fields = (await validate()).problems.map((problem) => problem.field);
    expect(fields.sort()).toEqual(["chanels", "llm.baseUrl", "start.prot"]);
  });

  it("takes the key from .env as the daemon does", async () => {
    await write({ llm: { provider: "openai", model: "gpt-4.1-mini" } });
    await writeFile(join(root, ".env"), "OPENAI_API_KEY=sk-test\n");
    expect((await validate()).problems).toEqual([]);
  });

  it("names start.port and a channel's listen.port when another process holds them", async () => {
    const taken = await heldPort();
    await write({
      llm: model,
      start: { port: taken },
      channels: {
        hook: {
          adapter: "@downcity/adapters-webhook",
          listen: { port: taken },
          url: "http://127.0.0.1:9/replies",
          secret: "0123456789abcdef0123",
        },
      },
    });
    const fields = (await validate(true)).problems.map((problem) => `${problem.kind} ${problem.field}`);
    expect(fields.sort()).toEqual(["port channels.hook.listen.port", "port start.port"]);
    expect((await validate(false)).problems).toEqual([]);
  });

  it("reports a JSON syntax error with line and column", async () => {
    await writeFile(join(root, "downcity.json"), '{\n  "name": "a",\n}\n');
    const { problems } = await validate();
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toMatch(/downcity\.json:2:14: a trailing comma/);
  });
});
