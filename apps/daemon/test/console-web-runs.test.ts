/// <reference lib="dom" />
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { until } from "@downcity/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createConsoleWebWorld, launchChromium } from "./console-web-world.js";

const artifacts = fileURLToPath(new URL("../test-artifacts/console-web/", import.meta.url));
// A real 1x1 PNG, as a chat bridge would post it.
const dotPng =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

// Each scenario is several steps with deadlines of their own (a run, page loads, waits for
// elements); the test's limit only guards against a hang (one took over 30 s at CI's load).
describe("web console: runs, Markdown, media and approvals in headless Chromium", {
  timeout: 180_000,
}, () => {
  let world: Awaited<ReturnType<typeof createConsoleWebWorld>>;
  let browser: Browser;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${artifacts}${name}.png`, fullPage: true });
  const agentUrl = (root: string, view: string, detail = "") =>
    `${world.base}/#/agent/${encodeURIComponent(root)}/${view}${detail ? `/${encodeURIComponent(detail)}` : ""}`;

  beforeAll(async () => {
    await mkdir(artifacts, { recursive: true });
    [world, browser] = await Promise.all([
      createConsoleWebWorld(
        { daemonEntry: inject("daemonEntry"), consoleEntry: inject("consoleEntry") },
        { alphaOpenDirect: true, betaApprovals: true },
      ),
      launchChromium(),
    ]);
    const context = await browser.newContext({ viewport: { width: 1200, height: 700 } });
    page = await context.newPage();
    await page.goto((await world.loginLink()).url);
    await page.getByRole("heading", { name: "Agents" }).waitFor();
  }, 90000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it("renders an answer's Markdown as elements: no raw HTML, only safe links in a new tab", async () => {
    await page.goto(agentUrl(world.roots.alpha, "chats", "cli:main"));
    await page.getByRole("textbox", { name: "Message" }).fill("please answer in markdown");
    await page.getByRole("button", { name: "Send" }).click();
    const answer = page.locator(".message-assistant:not(.live)", { hasText: "Build report" });
    await answer.waitFor({ timeout: 15000 });
    await answer.locator(".markdown h2", { hasText: "Build report" }).waitFor();
    expect(await answer.locator(".markdown strong").first().textContent()).toBe("All green");
    const link = answer.getByRole("link", { name: "the log" });
    expect(await link.getAttribute("href")).toBe("https://ci.test/run/7");
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer nofollow");
    expect(await answer.locator("li").allTextContents()).toEqual(["first item", "second item"]);
    expect(await answer.locator("td.align-right").textContent()).toBe("12");
    expect(await answer.locator("pre code.language-sh").textContent()).toBe("npm run build");
    // The raw HTML is text, the script link is no link, nothing ran.
    expect(await answer.locator("img").count()).toBe(0);
    expect(await answer.textContent()).toContain('<img src=x onerror="document.title=');
    expect(await answer.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
    await shot("chat-markdown");

    // The answer links to the run that wrote it.
    await answer.getByRole("link", { name: /^run / }).click();
    await page.getByTestId("run-status").filter({ hasText: "completed" }).waitFor({ timeout: 15000 });
    expect(page.url()).toContain("/runs/");
  });

  it("lists runs with filters and shows a run as a timeline with its tool call's input and output", async () => {
    const client = await world.client(world.roots.alpha);
    const reply = await client.chatSend({ contextId: "cli:runs", text: "please run a command" });
    await page.goto(agentUrl(world.roots.alpha, "runs"));
    await page.getByRole("combobox", { name: "Context" }).fill("cli:runs");
    await page.getByRole("combobox", { name: "Context" }).press("Tab");
    const row = page.locator(`tr[data-run="${reply.requestId}"]`);
    await row.waitFor({ timeout: 15000 });
    // Filtered to the context: the page lists exactly the runs the daemon has for it (this one, plus
    // any the agent started there on its own, e.g. a follow-up), none of cli:main's.
    const shown = async () =>
      (
        await page
          .locator("tr[data-run]")
          .evaluateAll((rows) => rows.map((tr) => tr.getAttribute("data-run")))
      )
        .sort()
        .join(" ");
    const expected = async () =>
      (await client.runs({ context: "cli:runs", limit: 200 })).runs
        .map((run) => run.requestId)
        .sort()
        .join(" ");
    let seen = "";
    await until(
      async () => {
        const [onPage, ofDaemon] = [await shown(), await expected()];
        seen = `shown: ${onPage}; the daemon's: ${ofDaemon}`;
        return onPage === ofDaemon && onPage.includes(reply.requestId);
      },
      () => `the runs of cli:runs only (${seen})`,
    );
    expect((await client.runs({ limit: 200 })).runs.some((run) => run.contextId !== "cli:runs")).toBe(true);
    expect(await row.textContent()).toContain("completed");
    await page.getByRole("combobox", { name: "Status" }).selectOption("failed");
    await page.getByTestId("runs-empty").waitFor();
    await page.getByRole("combobox", { name: "Status" }).selectOption("completed");
    await row.getByRole("link", { name: reply.requestId }).click();

    await page.getByTestId("run-end").filter({ hasText: "completed" }).waitFor({ timeout: 15000 });
    const firstStep = page.locator('details.run-step[data-step="0"]');
    expect(await firstStep.locator(":scope > summary").textContent()).toMatch(
      /model \d+(\.\d)? m?s · \d+ in \(\d+ cached\) \/ \d+ out · 1 tool call/,
    );
    await firstStep.locator(":scope > summary").click();
    const tool = firstStep.locator("details.tool-call", { hasText: "shell_exec" });
    await tool.locator(":scope > summary").click();
    await expect(tool.locator("pre").first().textContent()).resolves.toContain("echo from-the-tool");
    await expect(tool.locator("pre").nth(1).textContent()).resolves.toContain("from-the-tool");
    expect(await tool.locator(":scope > summary").textContent()).toMatch(/\(\d+(\.\d)? m?s\)/);
    const lastStep = page.locator("details.run-step").last();
    await lastStep.locator(":scope > summary").click();
    await lastStep.locator(".reply", { hasText: /started sh_/ }).waitFor();
    // The shell sessions the run started, from its journal's `shell` records.
    await expect(page.getByTestId("run-shells").textContent()).resolves.toMatch(
      /sh_\S+ exec, exited: echo from-the-tool/,
    );
    await shot("run-timeline");
  });

  it("shows an image a chat sent, serves nothing outside the media folder, and marks a message typed in the console", async () => {
    const sent = await world.webhookEvent({
      eventId: "evt-media-1",
      chatId: "room-1",
      chatType: "direct",
      userId: "u-1",
      text: "look at this",
      attachments: [{ mediaType: "image/png", name: "dot.png", data: dotPng }],
    });
    expect(sent.status).toBe(202);
    const client = await world.client(world.roots.alpha);
    const contextId = await until(
      async () =>
        (await client.contexts()).contexts.find((item) => item.contextId.includes("room-1"))?.contextId,
      "the platform chat's context",
    );
    await page.goto(agentUrl(world.roots.alpha, "chats", contextId));
    const image = page.locator(".message-user .media-image img");
    await image.waitFor({ timeout: 15000 });
    await until(
      async () => (await image.evaluate((node) => (node as HTMLImageElement).naturalWidth)) === 1,
      "the image to load",
    );
    expect(await image.getAttribute("src")).toMatch(/^\/console\/api\/media\?/);
    const status = (path: string) =>
      page.evaluate(
        async ([agent, file]) =>
          (
            await fetch(
              `/console/api/media?${new URLSearchParams({ agent: agent as string, path: file as string })}`,
            )
          ).status,
        [world.roots.alpha, path],
      );
    expect(await status("downcity.json")).toBe(404);
    expect(await status(".downcity/media/../../downcity.json")).toBe(404);
    const src = (await image.getAttribute("src")) as string;
    expect((await fetch(`${world.base}${src}`)).status).toBe(401);

    await page.getByRole("textbox", { name: "Message" }).fill("hello from the operator");
    await page.getByRole("button", { name: "Send" }).click();
    const typed = page.locator(".message-user:not(.pending)", { hasText: "hello from the operator" });
    await typed.getByTestId("sent-from-console").waitFor({ timeout: 15000 });
    const history = await client.chatHistory({ contextId, last: 10 });
    const stored = history.messages.find((message) =>
      JSON.stringify(message.parts).includes("hello from the operator"),
    );
    expect(stored?.metadata).toMatchObject({ sentFrom: "console", channel: "hook", chatId: "room-1" });
    await shot("chat-media");
  });

  it("shows a pending-approvals badge and approves the command from the console", async () => {
    const client = await world.client(world.roots.beta);
    await client.chatQueue({ contextId: "cli:main", text: "please run a command" });
    await page.goto(agentUrl(world.roots.beta, "chats", "cli:main"));
    const badge = page.getByTestId("approvals-badge");
    await badge.filter({ hasText: "1" }).waitFor({ timeout: 20000 });
    await page.getByRole("link", { name: /^Approvals/ }).click();
    const request = page.locator("article.approval", { hasText: "echo from-the-tool" });
    await request.waitFor();
    await shot("approvals");
    await request.getByRole("button", { name: "Allow once" }).click();
    await request.waitFor({ state: "detached", timeout: 15000 });
    await badge.waitFor({ state: "detached", timeout: 10000 });
    await until(async () => {
      const { messages } = await client.chatHistory({ contextId: "cli:main", last: 5 });
      return JSON.stringify(messages).includes('"output":"from-the-tool\\n"') || undefined;
    }, "the approved command's run to finish");
    await page.getByRole("table", { name: "Last decisions" }).getByRole("cell", { name: "once" }).waitFor();
  });
});
