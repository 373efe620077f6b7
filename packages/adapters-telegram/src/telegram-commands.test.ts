import { spawn } from "node:child_process";
import { createScriptedModel } from "@downcity/core/scripted";
import { createRecordingContext } from "@downcity/core/test";
import { isAlive, until } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createTelegramAdapter } from "./telegram-adapter.js";
import { useTelegramHostWorld } from "./test/telegram-host.js";

const world = useTelegramHostWorld("downcity-tg-commands-");

describe("chat commands on telegram", () => {
  it("/stop during a `sleep 30` tool run kills it and confirms, with no model call for the command", async () => {
    const { root, server } = await world.create();
    let sleeper: number | undefined;
    // A tool that runs `sleep 30` and kills it when the run is aborted, as the shell tools do.
    const sleepTool = {
      sleep: {
        description: "Runs sleep 30",
        inputSchema: z.object({}),
        execute: (_input: unknown, { abortSignal }: { abortSignal?: AbortSignal }) =>
          new Promise((resolve) => {
            const child = spawn("sleep", ["30"], {
              stdio: "ignore",
              ...(abortSignal ? { signal: abortSignal } : {}),
            });
            sleeper = child.pid;
            child.on("error", () => {});
            child.on("exit", (code, signal) => resolve({ code, signal }));
          }),
      },
    };
    const model = createScriptedModel([{ toolCalls: [{ toolName: "sleep", input: {} }] }], {
      fallback: "should never be asked",
    });
    await world.start({
      rootDir: root,
      server,
      tools: sleepTool,
      model: model.model,
    });
    server.injectMessage({ text: "sleep for a while", from: { id: 7 } });
    await until(() => (sleeper !== undefined && isAlive(sleeper)) || undefined, "the sleep to start");
    const callsBefore = model.calls.length;
    server.injectMessage({ text: "/stop", from: { id: 7 } });
    await until(
      () => server?.sent().some((sent) => sent.text === "Stopped.") || undefined,
      "the confirmation",
    );
    await until(() => (sleeper !== undefined && !isAlive(sleeper)) || undefined, "the sleep to be killed");
    expect(model.calls.length).toBe(callsBefore);
  });

  it("/help lists the commands and /status says whether a run is going on, without the model", async () => {
    const { root, server } = await world.create();
    const model = createScriptedModel([]);
    await world.start({ rootDir: root, server, tools: {}, model: model.model });
    server.injectMessage({ text: "/help", from: { id: 7 } });
    server.injectMessage({ text: "/status", from: { id: 7 } });
    await until(() => (server?.sent().length ?? 0) >= 2 || undefined, "two answers");
    const texts = server.sent().map((sent) => sent.text);
    expect(texts.join("\n")).toContain("/stop");
    expect(texts).toContain("Idle: nothing is running here.");
    expect(model.calls).toHaveLength(0);
    const menu = await until(() => server?.calls("setMyCommands")[0], "the command menu");
    expect(menu.payload.commands).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ command: "stop" }),
        expect.objectContaining({ command: "new" }),
      ]),
    );
  });

  it("lists the commands the host answers in the bot's menu, leaving out names Telegram refuses", async () => {
    const { server } = await world.create();
    const adapter = createTelegramAdapter({
      token: server.token,
      apiRoot: server.url,
      pollTimeoutSeconds: 1,
    });
    const recording = await createRecordingContext({ channel: "tg" });
    try {
      await adapter.start({
        ...recording.context,
        commands: [
          { name: "stop", description: "Stop what I am doing" },
          { name: "approve", description: "Approve a pending command" },
          { name: "Not-Valid", description: "refused by Telegram" },
        ],
      });
      const menu = await until(() => server.calls("setMyCommands")[0], "the command menu");
      expect(menu.payload.commands).toEqual([
        { command: "stop", description: "Stop what I am doing" },
        { command: "approve", description: "Approve a pending command" },
      ]);
    } finally {
      await adapter.stop();
      await recording.dispose();
    }
  });
});
