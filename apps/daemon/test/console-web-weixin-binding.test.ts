/// <reference lib="dom" />
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeWeixinPlatform, startFakeWeixinPlatform } from "@downcity/adapters-weixin/test";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  agentOn,
  createConsoleLoginLink,
  initProject,
  startConsole,
  stopConsole,
  stopDaemon,
} from "../src/index.js";
import { ensureConsoleWebBuilt, launchChromium } from "./console-web-world.js";
import { createTempWorld } from "./temp-project.js";

const artifacts = fileURLToPath(new URL("../test-artifacts/console-web/", import.meta.url));
const boundToken = "consolebound-0123456789abcdef@im.bot";

// The built daemon runs a WeChat channel that has no token yet; the operator binds it from the
// Channels page, the fake iLink server plays the phone, and the channel then answers a message.
describe("web console: binding a WeChat channel by QR code", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  let fake: FakeWeixinPlatform;
  let model: OpenAICompatibleServer;
  let browser: Browser;
  let page: Page;
  let root: string;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    ensureConsoleWebBuilt();
    await mkdir(artifacts, { recursive: true });
    world = await createTempWorld("dc-web-weixin-");
    [fake, model, browser] = await Promise.all([
      startFakeWeixinPlatform(),
      startOpenAICompatibleServer({ respond: () => ({ text: "Hello from WeChat's agent." }) }),
      launchChromium(),
    ]);
    env = { ...world.env, DOWNCITY_DAEMON_ENTRY: inject("daemonEntry") };
    root = world.project("wx");
    await initProject(root, {
      name: "wx",
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
    });
    const configFile = join(root, "downcity.json");
    const config = JSON.parse(await readFile(configFile, "utf8"));
    config.channels = {
      wechat: {
        adapter: "@downcity/adapters-weixin",
        baseUrl: fake.baseUrl,
        cdnBaseUrl: fake.cdnBaseUrl,
        reconnectDelayMs: 100,
        access: { dm: "open" },
      },
    };
    await writeFile(configFile, `${JSON.stringify(config, null, 2)}\n`);
    await startConsole({ env, entry: inject("consoleEntry") });
    await agentOn({ rootDir: root, env, entry: inject("daemonEntry") });
    page = await (await browser.newContext({ viewport: { width: 1000, height: 900 } })).newPage();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (root) await stopDaemon({ rootDir: root, graceMs: 2000 }).catch(() => {});
    if (env) await stopConsole({ env, graceMs: 2000 }).catch(() => {});
    await fake?.close();
    await model?.close();
    await world?.cleanup();
  });

  it("shows the QR code, follows the scan, stores the token 0600, and the channel then answers", async () => {
    await page.goto((await createConsoleLoginLink({ env })).url);
    const base = new URL(page.url()).origin;
    await page.goto(`${base}/#/agent/${encodeURIComponent(root)}/channels`);
    const channel = page.locator('article[data-channel="wechat"]');
    // Not bound yet: the daemon reports the channel failed with the re-binding advice.
    await channel
      .getByText("no WeChat bot is bound")
      .first()
      .waitFor({ timeout: 60_000 })
      .catch(async (error: unknown) => {
        // What the page showed instead is what tells a failure here apart from a slow start.
        await page.screenshot({ path: `${artifacts}channels-weixin-unbound-failed.png`, fullPage: true });
        throw new Error(`${(error as Error).message}\nThe page showed: ${await page.textContent("body")}`);
      });

    await channel.getByRole("button", { name: "Show a QR code to bind" }).click();
    const picture = channel.getByRole("img", { name: "QR code to bind the WeChat channel wechat" });
    await picture.waitFor();
    expect(await picture.getAttribute("src")).toMatch(/^data:image\/svg\+xml;base64,/);
    // The picture really rendered (an SVG the browser decoded, not a broken image).
    await until(
      async () =>
        (await picture.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 100)) ||
        undefined,
      "the QR picture decoded",
    );
    const binding = channel.locator("section[data-binding-state]");
    expect(await binding.getAttribute("data-binding-state")).toBe("waiting");
    await page.screenshot({ path: `${artifacts}channels-weixin-qr.png`, fullPage: true });
    const code = await until(() => fake.login.codes()[0], "the QR code request");
    expect(await channel.textContent()).toContain(code);

    fake.login.scan(code);
    await channel.locator('section[data-binding-state="scanned"]').waitFor();
    expect(await binding.textContent()).toContain("confirm the binding on the phone");
    fake.login.confirm(code, boundToken, "wxid_owner@im.wechat");
    await channel.locator('section[data-binding-state="confirmed"]').waitFor();
    expect(await picture.count()).toBe(0);
    const file = join(root, ".downcity", "channels", "wechat", "state", "weixin-credentials.json");
    expect(await binding.textContent()).toContain(file);
    expect(await page.textContent("body")).not.toContain(boundToken);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ botToken: boundToken });

    // The running daemon picks the token up by itself and the page shows the channel connected.
    await channel.locator(".status-connected").waitFor({ timeout: 60_000 });
    await page.screenshot({ path: `${artifacts}channels-weixin-bound.png`, fullPage: true });
    const sent = await fake.deliver({
      chatType: "direct",
      chatId: "wxid_ada@im.wechat",
      userId: "wxid_ada@im.wechat",
      text: "hello after binding",
    });
    expect(sent.acked).toBe(true);
    await until(
      () => fake.sent().find((message) => message.text.includes("Hello from WeChat's agent.")),
      "the agent's answer in WeChat",
      60_000,
    );
  }, 180_000);

  it("a stopped agent's WeChat channel still shows its binding, read from downcity.json", async () => {
    await stopDaemon({ rootDir: root, graceMs: 5000 });
    await page.reload();
    await page
      .getByText("The agent is not running, so its channels are not listed")
      .waitFor({ timeout: 30_000 });
    const channel = page.locator('article[data-channel="wechat"]');
    await channel.locator('section[data-binding-state="confirmed"]').waitFor();
    expect(await channel.getByRole("button", { name: "Bind again (new QR code)" }).count()).toBe(1);
  }, 60_000);
});
