import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeWeixinPlatform, startFakeWeixinPlatform } from "@downcity/adapters-weixin/test";
import { DowncityError } from "@downcity/core";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { ConsoleAgents } from "./console-agents.js";
import type { ConsoleApiRoutes } from "./console-api-routes.js";
import { createConsoleServer } from "./console-server.js";
import { createWeixinBindingRoutes } from "./weixin-binding-routes.js";
import { createWeixinBindings, type WeixinBindings, type WeixinBindingView } from "./weixin-bindings.js";

describe("the console's WeChat binding routes", () => {
  let dir: string;
  let fake: FakeWeixinPlatform;
  let bindings: WeixinBindings;
  let routes: ConsoleApiRoutes;
  const call = async (route: string, input: Record<string, unknown>) => {
    const handler = routes[route];
    if (!handler) throw new Error(`no route ${route}`);
    const query = new URLSearchParams(route.startsWith("GET") ? (input as Record<string, string>) : {});
    const answer = (await handler({ query, body: input })) as { binding: WeixinBindingView };
    return answer.binding;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-console-weixin-"));
    fake = await startFakeWeixinPlatform();
    const channels = {
      wechat: { adapter: "@downcity/adapters-weixin", baseUrl: fake.baseUrl },
      hook: { adapter: "@downcity/adapters-webhook", secret: "0123456789abcdef0123456789abcdef" },
    };
    await writeFile(join(dir, "downcity.json"), JSON.stringify({ channels }));
    const agents = {
      root: async (agent: string) => {
        if (agent !== dir) throw new DowncityError("NOT_FOUND", `No registered agent at ${agent}`);
        return dir;
      },
    } as unknown as ConsoleAgents;
    bindings = createWeixinBindings();
    routes = createWeixinBindingRoutes(agents, bindings, {});
  });
  afterEach(async () => {
    bindings.close();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("lists the WeChat channels of downcity.json (a stopped agent's too)", async () => {
    const handler = routes["GET channels/weixin-channels"];
    const query = new URLSearchParams({ agent: dir });
    expect(await handler?.({ query, body: undefined })).toEqual({ channels: ["wechat"] });
  });

  test("start shows an SVG QR code; the scan and the confirmation show; the token is stored 0600", async () => {
    expect(await call("GET channels/weixin-binding", { agent: dir, channel: "wechat" })).toMatchObject({
      state: "none",
    });
    const started = await call("POST channels/weixin-binding", { agent: dir, channel: "wechat" });
    expect(started.state).toBe("waiting");
    expect(started.qrImage).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(started.qrImage?.split(",")[1] ?? "", "base64").toString()).toContain("<svg");
    const code = fake.login.codes()[0] as string;
    expect(started.link).toContain(code);
    // A second start while the code is live is the same binding, not a second code.
    await call("POST channels/weixin-binding", { agent: dir, channel: "wechat" });
    expect(fake.login.codes()).toHaveLength(1);

    fake.login.scan(code);
    const view = () => call("GET channels/weixin-binding", { agent: dir, channel: "wechat" });
    await until(async () => (await view()).state === "scanned" || undefined, "the scan");
    fake.login.confirm(code, "consoletoken-0123456789abcdef@im.bot", "wxid_owner@im.wechat");
    const bound = await until(async () => {
      const current = await view();
      return current.state === "confirmed" ? current : undefined;
    }, "the confirmation");
    const file = join(dir, ".downcity", "channels", "wechat", "state", "weixin-credentials.json");
    expect(bound.credentialsFile).toBe(file);
    expect(bound.qrImage).toBeUndefined();
    expect(bound.message).toContain("connects this channel within seconds");
    expect(bound.message).not.toContain("consoletoken");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({
      botToken: "consoletoken-0123456789abcdef@im.bot",
      baseUrl: fake.baseUrl,
    });
  });

  test("an expired code and a cancelled binding end without a token; a new start shows a new code", async () => {
    await call("POST channels/weixin-binding", { agent: dir, channel: "wechat" });
    fake.login.expire(fake.login.codes()[0] as string);
    const view = () => call("GET channels/weixin-binding", { agent: dir, channel: "wechat" });
    const expired = await until(async () => {
      const current = await view();
      return current.state === "expired" ? current : undefined;
    }, "the expiry");
    expect(expired.qrImage).toBeUndefined();
    expect(expired.message).toContain("show a new code");
    const again = await call("POST channels/weixin-binding", { agent: dir, channel: "wechat" });
    expect(again.state).toBe("waiting");
    expect(fake.login.codes()).toHaveLength(2);
    expect(
      await call("POST channels/weixin-binding/cancel", { agent: dir, channel: "wechat" }),
    ).toMatchObject({
      state: "cancelled",
    });
  });

  test("bad input is refused naming the field: unknown agent, another kind of channel, extra fields", async () => {
    const refusal = (route: string, input: Record<string, unknown>) =>
      call(route, input).then(
        () => undefined,
        (error: unknown) => (DowncityError.isInstance(error) ? error : undefined),
      );
    expect((await refusal("POST channels/weixin-binding", { agent: "/nope", channel: "wechat" }))?.code).toBe(
      "NOT_FOUND",
    );
    const hook = await refusal("POST channels/weixin-binding", { agent: dir, channel: "hook" });
    expect(hook?.code).toBe("INVALID_INPUT");
    expect(hook?.message).toContain("not a WeChat channel");
    expect((await refusal("POST channels/weixin-binding", { agent: dir, channel: "ghost" }))?.code).toBe(
      "NOT_FOUND",
    );
    const extra = await refusal("POST channels/weixin-binding", {
      agent: dir,
      channel: "wechat",
      token: "x",
    });
    expect(extra?.code).toBe("INVALID_INPUT");
    expect((await refusal("GET channels/weixin-binding", { agent: dir }))?.code).toBe("INVALID_INPUT");
    expect(fake.login.codes()).toHaveLength(0);
  });

  test("without a console session the routes answer 401 (default deny)", async () => {
    const server = createConsoleServer({ token: "t".repeat(43), env: { DOWNCITY_HOME: dir } });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/console/api/channels/weixin-binding`;
    try {
      expect((await fetch(`${base}?agent=${encodeURIComponent(dir)}&channel=wechat`)).status).toBe(401);
      const post = await fetch(base, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base.slice(0, base.indexOf("/console")) },
        body: JSON.stringify({ agent: dir, channel: "wechat" }),
      });
      expect(post.status).toBe(401);
      expect(fake.login.codes()).toHaveLength(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
