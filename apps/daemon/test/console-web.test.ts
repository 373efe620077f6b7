/// <reference lib="dom" />
import { mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { until } from "@downcity/testkit";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { daemonStatus, stopDaemon } from "../src/index.js";
import { createConsoleWebWorld, launchChromium } from "./console-web-world.js";

// Screenshots of every page land here (git-ignored) as test artifacts.
const artifacts = fileURLToPath(new URL("../test-artifacts/console-web/", import.meta.url));

describe("web console in headless Chromium", () => {
  let world: Awaited<ReturnType<typeof createConsoleWebWorld>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${artifacts}${name}.png`, fullPage: true });
  const agentUrl = (root: string, view: string, detail = "") =>
    `${world.base}/#/agent/${encodeURIComponent(root)}/${view}${detail ? `/${encodeURIComponent(detail)}` : ""}`;

  beforeAll(async () => {
    await mkdir(artifacts, { recursive: true });
    [world, browser] = await Promise.all([
      createConsoleWebWorld({ daemonEntry: inject("daemonEntry"), consoleEntry: inject("consoleEntry") }),
      launchChromium(),
    ]);
    context = await browser.newContext({ viewport: { width: 1100, height: 420 } });
    page = await context.newPage();
  }, 90000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it("shows the login screen to an unauthenticated load, with a strict CSP and no inline script", async () => {
    const response = await page.goto(world.base);
    expect(response?.status()).toBe(401);
    await expect(page.getByRole("heading", { name: "Downcity console" }).isVisible()).resolves.toBe(true);
    expect(await page.textContent("body")).toContain("downcity console open");
    const csp = (await response?.allHeaders())?.["content-security-policy"] ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    const api = await fetch(`${world.base}/console/api/agents`);
    expect(api.status).toBe(401);
    await shot("login");
  });

  it("logs in through the one-time link and refuses a second use of it", async () => {
    const link = await world.loginLink();
    expect(link.url).toMatch(new RegExp(`^${world.base}/login\\?code=[\\w-]{40,}$`));
    expect(link.url).not.toContain(world.token);

    // The exchange itself, without following the redirect, shows the cookie's flags.
    const exchange = await fetch(link.url, { redirect: "manual" });
    expect(exchange.status).toBe(303);
    const setCookie = exchange.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(new RegExp(`^downcity_console_${world.port}=[\\w-]{40,};`));
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/");
    const sessionCookie = setCookie.split(";")[0] as string;
    // The session works for reads, but a state-changing request without this console's Origin is refused.
    expect(
      (await fetch(`${world.base}/console/api/agents`, { headers: { cookie: sessionCookie } })).status,
    ).toBe(200);
    const noOrigin = await fetch(`${world.base}/console/api/agents/control`, {
      method: "POST",
      headers: { cookie: sessionCookie, "content-type": "application/json" },
      body: JSON.stringify({ agent: world.roots.beta, action: "stop" }),
    });
    expect(noOrigin.status).toBe(403);
    const foreign = await fetch(`${world.base}/console/api/agents/control`, {
      method: "POST",
      headers: { cookie: sessionCookie, "content-type": "application/json", origin: "http://evil.example" },
      body: JSON.stringify({ agent: world.roots.beta, action: "stop" }),
    });
    expect(foreign.status).toBe(403);
    expect((await daemonStatus({ rootDir: world.roots.beta })).running).toBe(true);

    // A second exchange of a spent link fails; the browser signs in with a fresh one.
    const again = await page.goto(link.url);
    expect(again?.status()).toBe(401);
    expect(await page.textContent("body")).toContain("already used");
    const fresh = await world.loginLink();
    await page.goto(fresh.url);
    expect(new URL(page.url()).pathname).toBe("/");
    await page.getByRole("heading", { name: "Agents" }).waitFor();
    const cookie = (await context.cookies()).find((item) => item.name === `downcity_console_${world.port}`);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    const replay = await browser.newPage();
    expect((await replay.goto(fresh.url))?.status()).toBe(401);
    await replay.close();

    // The page HTML itself carries the CSP and loads only external scripts.
    const html = await fetch(world.base, { headers: { cookie: `${cookie?.name}=${cookie?.value}` } });
    expect(html.headers.get("content-security-policy")).toContain("script-src 'self'");
    const text = await html.text();
    expect(text).toMatch(/<script type="module" crossorigin src="\/assets\/[^"]+\.js"><\/script>/);
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(text).not.toContain(world.token);
  });

  it("lists both agents with status, version and model", async () => {
    for (const name of ["alpha", "beta"]) {
      const row = page.locator(`tr[data-agent="${name}"]`);
      await row.waitFor();
      await expect(row.getByTestId("agent-status").textContent()).resolves.toBe("running");
      expect(await row.textContent()).toContain("scripted");
    }
    await shot("agents");
  });

  it("sends a message and reads the reply as it streams", async () => {
    await page.getByRole("link", { name: "alpha" }).click();
    await page.getByRole("heading", { name: /Chat cli:main/ }).waitFor();
    await page.getByRole("textbox", { name: "Message" }).fill("hello there");
    await page.getByRole("button", { name: "Send" }).click();
    const full = "Hello from the scripted model, streamed piece by piece.";
    // Seen part-way: some of the reply is on the page before all of it is.
    const partial = await page.waitForFunction(
      (whole) => {
        const text = document.querySelector('[data-testid="streaming-reply"]')?.textContent ?? "";
        return text.length > 0 && text.length < whole.length ? text : false;
      },
      full,
      { polling: 10, timeout: 15000 },
    );
    expect(full.startsWith((await partial.jsonValue()) as string)).toBe(true);
    await page.locator(".message-assistant:not(.live)", { hasText: full }).waitFor({ timeout: 15000 });
    await page.locator(".message-user", { hasText: "hello there" }).first().waitFor();
    // The run's token usage, from its run-end event.
    await expect
      .poll(async () => page.getByLabel("Token usage of the last reply").textContent(), { timeout: 15000 })
      .toMatch(/Last reply: \d+ tokens in \(\d+ cached\), \d+ out/);
    await shot("chat-streamed");
    // Keyboard: Tab from the message box reaches Send, whose focus ring is visible.
    await page.getByRole("textbox", { name: "Message" }).focus();
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement;
      return { text: element.textContent, outline: getComputedStyle(element).outlineStyle };
    });
    expect(focused).toEqual({ text: "Send", outline: "solid" });
  });

  it("stops a reply part-way with the Stop button", async () => {
    await page.getByRole("textbox", { name: "Message" }).fill("please stream slowly");
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="streaming-reply"]')?.textContent ?? "").length >= 8,
      undefined,
      { polling: 10, timeout: 15000 },
    );
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByTestId("streaming-reply").waitFor({ state: "detached", timeout: 15000 });
    const history = await (await world.client(world.roots.alpha)).chatHistory({
      contextId: "cli:main",
      last: 1,
    });
    const text = JSON.stringify(history.messages.at(-1)?.parts ?? []);
    // The full reply is 120 digits; a stopped run keeps only what was streamed before the stop.
    expect(text).not.toContain("0123456789".repeat(12));
    expect(await page.getByRole("button", { name: "Stop" }).count()).toBe(0);
  });

  it("follows a shell job the agent started until it ends, then sees the agent's follow-up", async () => {
    await page.getByRole("textbox", { name: "Message" }).fill("please start a shell job");
    await page.getByRole("button", { name: "Send" }).click();
    // Tool activity shows while the tool runs, then the call is kept collapsed in the history.
    await page.locator(".tool-activity", { hasText: "shell_start" }).waitFor({ timeout: 15000 });
    const started = page.locator(".message-assistant:not(.live)", { hasText: /started sh_/ });
    await started.waitFor({ timeout: 15000 });
    const shellId = /started (sh_\S+)/.exec((await started.textContent()) ?? "")?.[1] as string;
    const toolCall = page.locator("details.tool-call", { hasText: "shell_start" }).last();
    expect(await toolCall.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(false);
    await toolCall.locator("summary").click();
    await expect(toolCall.locator("pre").first().textContent()).resolves.toContain("tick-$i");

    await page.goto(agentUrl(world.roots.alpha, "shell"));
    const row = page.getByRole("row", { name: new RegExp(shellId) });
    await row.waitFor();
    expect(await row.textContent()).toContain("cli:main");
    await row.getByRole("link", { name: shellId }).click();
    const output = page.getByTestId("shell-output");
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="shell-output"]')?.textContent ?? "").includes("tick-3"),
      undefined,
      { timeout: 15000 },
    );
    // The stream ends once the session has, and the page does not replay it.
    await page.locator('[data-testid="shell-output"][data-ended="true"]').waitFor({ timeout: 15000 });
    expect(await output.textContent()).toBe("tick-1\ntick-2\ntick-3\n");
    await page.locator("h2 .status", { hasText: "exited" }).waitFor({ timeout: 15000 });
    await shot("shell");

    await page.goto(agentUrl(world.roots.alpha, "chats", "cli:main"));
    await page
      .locator(".message-assistant", { hasText: `The job ${shellId} has finished.` })
      .first()
      .waitFor({ timeout: 20000 });
    await shot("chat");
  });

  it("writes to a shell session's stdin and closes it", async () => {
    const client = await world.client(world.roots.alpha);
    const started = (await client.servicesCommand({
      service: "shell",
      action: "start",
      payload: { command: "cat", yield_ms: 0 },
      contextId: "cli:console-test",
    })) as { result: { shell_id: string } };
    const shellId = started.result.shell_id;
    await page.goto(agentUrl(world.roots.alpha, "shell", shellId));
    await page.locator("h2 .status", { hasText: "running" }).waitFor();
    await page.getByRole("textbox", { name: "Standard input" }).fill("echoed through stdin");
    await page.getByRole("button", { name: "Write" }).click();
    await page.getByTestId("shell-output").filter({ hasText: "echoed through stdin" }).waitFor();
    await page.getByRole("button", { name: "Close session" }).click();
    await page.locator("h2 .status", { hasNotText: "running" }).waitFor();
    const status = await client.servicesCommand({
      service: "shell",
      action: "status",
      payload: { shell_id: shellId },
    });
    expect((status.result as { status: string }).status).not.toBe("running");
  });

  it("forgets a memory entry, and links an entry to the history message it came from", async () => {
    const client = await world.client(world.roots.alpha);
    await client.chatSend({ contextId: "cli:memory", text: "remember that the user prefers green tea" });
    await client.chatSend({ contextId: "cli:memory", text: "remember that the deploy target is staging" });
    await page.goto(agentUrl(world.roots.alpha, "memory"));
    const entry = page.getByRole("listitem").filter({ hasText: "the user prefers green tea" });
    await entry.waitFor();
    await shot("memory");
    const kept = page.getByRole("listitem").filter({ hasText: "the deploy target is staging" });
    await kept.getByRole("link", { name: /from message/ }).click();
    await page
      .locator(".message.focused", { hasText: "remember that the deploy target is staging" })
      .waitFor({ timeout: 10000 });
    expect(page.url()).toContain(encodeURIComponent("cli:memory"));

    await page.goto(agentUrl(world.roots.alpha, "memory"));
    await entry.getByRole("button", { name: "Forget the user prefers green tea" }).click();
    await entry.waitFor({ state: "detached" });
    await kept.waitFor();
    const found = await client.servicesCommand({
      service: "memory",
      action: "search",
      payload: { query: "green tea", contextId: "cli:memory" },
    });
    expect((found.result as { results: unknown[] }).results).toEqual([]);
  });

  it("runs a task from the page and shows the run with its files", async () => {
    const client = await world.client(world.roots.alpha);
    await client.servicesCommand({
      service: "task",
      action: "create",
      payload: {
        id: "daily-report",
        title: "Daily report",
        when: "0 9 * * *",
        body: "write the report",
        notify: "cli:main",
      },
    });
    await page.goto(agentUrl(world.roots.alpha, "tasks"));
    const task = page.locator('article[data-task="daily-report"]');
    await task.waitFor();
    expect(await task.textContent()).toMatch(/next fire \d/);
    await task.getByRole("button", { name: "Run Daily report now" }).click();
    await task.getByTestId("run-status").filter({ hasText: "succeeded" }).waitFor({ timeout: 20000 });
    const run = task.locator(".runs > li").first();
    await run.locator("summary").first().click();
    await run.locator(".run-files code", { hasText: /^run\.json$/ }).waitFor();
    await task.getByRole("button", { name: "Pause Daily report" }).click();
    await task.getByRole("button", { name: "Resume Daily report" }).waitFor();
    await shot("tasks");
    await task.getByRole("button", { name: "Resume Daily report" }).click();
    await task.getByRole("button", { name: "Pause Daily report" }).waitFor();
  });

  it("shows skills, MCP servers and plug-ins, and the logs filtered by context id", async () => {
    await page.goto(agentUrl(world.roots.alpha, "extensions"));
    await page
      .getByRole("table", { name: "Plug-ins" })
      .getByRole("cell", { name: "memory", exact: true })
      .waitFor();
    // alpha configures no MCP server: an empty state, not an error.
    await page.getByTestId("mcp-empty").waitFor();
    expect(await page.textContent("main")).not.toContain("not available");
    await shot("extensions");
    await page.goto(agentUrl(world.roots.alpha, "logs"));
    const contextCells = () =>
      page.$$eval(".logs tr td:nth-child(4)", (cells) => cells.map((cell) => cell.textContent ?? ""));
    // Unfiltered, the day's log holds lines of other contexts and lines outside any run.
    await until(async () => new Set(await contextCells()).size > 1, "an unfiltered log");
    await page.getByRole("textbox", { name: "Context id" }).fill("cli:main");
    await page.getByRole("button", { name: "Filter" }).click();
    const filtered = await until(async () => {
      const cells = await contextCells();
      return cells.length > 0 && cells.every((cell) => cell === "cli:main") ? cells : undefined;
    }, "log lines of cli:main only");
    expect(filtered.length).toBeGreaterThan(0);
    await shot("logs");
  });

  it("reconnects an MCP server from the page (a new server process answers)", async () => {
    await page.goto(agentUrl(world.roots.beta, "extensions"));
    const server = page.locator('li[data-mcp-server="everything"]');
    await server.getByText("ready").waitFor({ timeout: 20000 });
    const pidText = async () => (await server.getByTestId("mcp-pid").textContent()) ?? "";
    const before = await pidText();
    expect(before).toMatch(/pid \d+/);
    await server.getByRole("button", { name: "Reconnect everything" }).click();
    await until(async () => {
      const now = await pidText().catch(() => "");
      return /pid \d+/.test(now) && now !== before && (await server.textContent())?.includes("ready");
    }, "a new MCP server process");
  });

  it("approves a pairing request from the Channels page", async () => {
    const sent = await world.webhookEvent({
      eventId: "evt-pair-1",
      chatId: "room-7",
      chatType: "direct",
      userId: "u-42",
      username: "ana",
      text: "hello, may I talk to you?",
    });
    expect(sent.status).toBe(202);
    await page.goto(agentUrl(world.roots.alpha, "channels"));
    const channel = page.locator('article[data-channel="hook"]');
    await channel.getByText("connected").waitFor({ timeout: 15000 });
    const pending = channel.getByRole("list", { name: "Pairing requests of hook" });
    await pending.getByRole("button", { name: "Approve ana" }).click();
    await channel.getByRole("list", { name: "Approved users of hook" }).getByText("ana").waitFor();
    expect(await pending.getByRole("listitem").count()).toBe(0);
    await shot("channels");
    const client = await world.client(world.roots.alpha);
    const access = (await client.servicesCommand({ service: "access", action: "list", payload: {} }))
      .result as {
      channels: Array<{ approved: Array<{ userId: string }> }>;
    };
    expect(access.channels[0]?.approved.map((user) => user.userId)).toEqual(["u-42"]);
  });

  it("opens the page a link names when the link changes while the page boots", async () => {
    // The hash changes after the first render and before the app listens for `hashchange` (a link
    // followed as the page loads): the app must still show the page the hash names.
    const booting = await context.newPage();
    await booting.addInitScript(
      (hash) => {
        document.addEventListener("DOMContentLoaded", () => {
          window.location.hash = hash;
        });
      },
      new URL(agentUrl(world.roots.alpha, "channels")).hash,
    );
    await booting.goto(`${world.base}/`);
    await booting.locator('article[data-channel="hook"]').waitFor({ timeout: 15000 });
    await booting.close();
  });

  it("tries a failed load of the agent pages again, saying so, instead of loading for ever", async () => {
    const flaky = await context.newPage();
    let refused = 0;
    // The first request for the agent pages' chunk fails as a dropped connection would.
    await flaky.route(/\/assets\/agent-page-[^/]+\.js$/, (route) => {
      if (refused++ === 0) return route.abort("connectionreset");
      return route.continue();
    });
    await flaky.goto(agentUrl(world.roots.alpha, "channels"));
    await flaky.getByRole("alert").getByText("Could not load this page").waitFor({ timeout: 15000 });
    await flaky.locator('article[data-channel="hook"]').waitFor({ timeout: 15000 });
    expect(refused).toBeGreaterThanOrEqual(2);
    await flaky.close();
  });

  it("shows an agent stopped from the CLI as stopped within 2 s, starts it again and restarts it from the page", async () => {
    await page.goto(world.base);
    const row = page.locator('tr[data-agent="alpha"]');
    await row.getByTestId("agent-status").filter({ hasText: "running" }).waitFor();
    await stopDaemon({ rootDir: world.roots.alpha, graceMs: 2000 });
    const stoppedAt = Date.now();
    await row.getByTestId("agent-status").filter({ hasText: "stopped" }).waitFor({ timeout: 5000 });
    expect(Date.now() - stoppedAt).toBeLessThan(2000);
    await row.getByRole("button", { name: "Start alpha", exact: true }).click();
    await row.getByTestId("agent-status").filter({ hasText: "running" }).waitFor({ timeout: 20000 });
    const before = await daemonStatus({ rootDir: world.roots.alpha });
    expect(before.running).toBe(true);
    await row.getByRole("button", { name: "Restart alpha" }).click();
    const after = await until(async () => {
      const status = await daemonStatus({ rootDir: world.roots.alpha });
      return status.running && status.pid !== before.pid ? status : undefined;
    }, "a restarted alpha").catch(async (error: Error) => {
      // What the page and alpha's log said: a restart that failed shows its reason in both.
      const alerts = await page.getByRole("alert").allTextContents();
      const log = await lastLogLines(world.roots.alpha, 15);
      throw new Error(`${error.message}; page alerts: ${JSON.stringify(alerts)}; alpha's log ends:\n${log}`);
    });
    expect(after.pid).not.toBe(before.pid);
    await row.getByTestId("agent-status").filter({ hasText: "running" }).waitFor();
    // A hang guard: each step has its own deadline, and three daemon starts and stops add up under load.
  }, 90_000);

  it("stops an agent from the page, which downcity status then reports as stopped", async () => {
    const row = page.locator('tr[data-agent="beta"]');
    await row.getByRole("button", { name: "Stop beta" }).click();
    await row.getByTestId("agent-status").filter({ hasText: "stopped" }).waitFor({ timeout: 15000 });
    await until(async () => !(await daemonStatus({ rootDir: world.roots.beta })).running, "beta stopped");
    await shot("agents-stopped");
  });

  it("signs out: the session cookie stops working and the login screen returns", async () => {
    const cookie = (await context.cookies()).find((item) => item.name === `downcity_console_${world.port}`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("downcity console open").first().waitFor();
    const api = await fetch(`${world.base}/console/api/agents`, {
      headers: { cookie: `${cookie?.name}=${cookie?.value}` },
    });
    expect(api.status).toBe(401);
  });
});

/** The last `count` lines of a project's daemon logs (every process), for a failure's message. */
async function lastLogLines(rootDir: string, count: number): Promise<string> {
  const dir = join(rootDir, ".downcity", "logs");
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((name) => name.endsWith(".jsonl"))
    .sort();
  const lines: string[] = [];
  for (const name of names) lines.push(...(await readFile(join(dir, name), "utf8")).trim().split("\n"));
  return lines.slice(-count).join("\n");
}
