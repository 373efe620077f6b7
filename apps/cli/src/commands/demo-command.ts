import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultContextId as defaultChatContextId } from "@downcity/daemon/status";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { connectDaemon } from "../daemon/connect-daemon.js";
import { type DaemonApi, loadDaemonApi } from "../daemon/load-daemon-api.js";
import { runChatSession } from "./chat-session.js";

type LlmChoice = { llm: Record<string, unknown>; banner: string[]; close?: () => Promise<void> };

async function chooseModel(io: CliIo, startDemoModel: DaemonApi["startDemoModel"]): Promise<LlmChoice> {
  if (io.env.OPENAI_API_KEY) {
    const model = io.env.DOWNCITY_DEMO_MODEL ?? "gpt-4o-mini";
    return {
      llm: { provider: "openai", model, apiKey: "${OPENAI_API_KEY}" },
      banner: [`Model: OpenAI ${model} (OPENAI_API_KEY is set; DOWNCITY_DEMO_MODEL picks another model).`],
    };
  }
  if (io.env.ANTHROPIC_API_KEY) {
    const model = io.env.DOWNCITY_DEMO_MODEL ?? "claude-haiku-4-5";
    return {
      llm: { provider: "anthropic", model, apiKey: "${ANTHROPIC_API_KEY}" },
      banner: [
        `Model: Anthropic ${model} (ANTHROPIC_API_KEY is set; DOWNCITY_DEMO_MODEL picks another model).`,
      ],
    };
  }
  const server = await startDemoModel();
  return {
    llm: server.llm,
    banner: [
      "+--------------------------------------------------------------------------+",
      "| Model: a SCRIPTED STAND-IN, not an LLM. It replies from a fixed script   |",
      "| (served on 127.0.0.1) so the whole loop runs offline: message -> tool    |",
      "| call -> shell -> streamed reply -> background-job follow-up.             |",
      "| Set OPENAI_API_KEY or ANTHROPIC_API_KEY to chat with a real model.       |",
      "+--------------------------------------------------------------------------+",
    ],
    close: () => server.close(),
  };
}

/**
 * `downcity demo`: a throwaway project in a temp dir, a model (the scripted stand-in unless an API
 * key is set), a detached daemon and the interactive chat; everything is removed on exit.
 */
export function registerDemoCommand(program: Command, io: CliIo): void {
  program
    .command("demo")
    .description(
      "Try Downcity in a throwaway project (scripted stand-in model unless OPENAI_API_KEY/ANTHROPIC_API_KEY is set)",
    )
    .option("--keep", "keep the temporary project instead of deleting it on exit")
    .action(async (options: { keep?: boolean }) => {
      const api = await loadDaemonApi();
      const rootDir = await mkdtemp(join(tmpdir(), "downcity-demo-"));
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
      let model: LlmChoice | undefined;
      let started = false;
      try {
        await api.initProject(rootDir);
        model = await chooseModel(io, () => api.startDemoModel());
        const configPath = join(rootDir, "downcity.json");
        const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
        await writeFile(configPath, `${JSON.stringify({ ...config, llm: model.llm }, null, 2)}\n`);
        io.stderr.write(`downcity demo: project ${rootDir}, starting its daemon...\n`);
        await api.startDaemonDetached({ rootDir });
        started = true;
        const connection = await connectDaemon(io, { dir: rootDir });
        await runChatSession({
          io,
          client: connection.client,
          contextId: defaultChatContextId,
          signal: controller.signal,
          banner: [
            ...model.banner,
            `Project: ${rootDir}${options.keep ? " (kept after exit)" : " (deleted on exit)"}`,
            'Try: "run ls" or "start a background job" — the agent uses its shell and reports back.',
          ],
        });
      } finally {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        if (started) await api.stopDaemon({ rootDir }).catch(() => undefined);
        await model?.close?.().catch(() => undefined);
        if (!options.keep) await rm(rootDir, { recursive: true, force: true });
      }
    });
}
