import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import type { Command } from "commander";
import { Option } from "commander";
import { CliExit, CliUsageError } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData } from "../output/print-data.js";

const providers = ["openai", "anthropic", "openai-compatible"] as const;
type Provider = (typeof providers)[number];

const suggestedModel: Record<Provider, string> = {
  openai: "gpt-4.1-mini",
  anthropic: "claude-sonnet-4-5",
  "openai-compatible": "llama3.2",
};

interface InitOptions {
  json?: boolean;
  provider?: Provider;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  apiKeyEnv?: string;
}

interface ModelAnswers {
  provider: Provider;
  model: string;
  baseURL?: string;
  apiKey?: string;
  apiKeyEnv?: string;
}

/** The question with its suggestion in brackets, e.g. `Model id: [gpt-4.1-mini] `; Enter takes the suggestion. */
function withDefault(question: string, suggestion: string): string {
  return suggestion ? `${question} [${suggestion}] ` : `${question} `;
}

/** Asks provider, model and base URL (each suggestion a default: Enter takes it), then the key with the typing hidden. */
async function askModel(io: CliIo): Promise<ModelAnswers | undefined> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stdout.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: io.stdin, output, terminal: true });
  // Ctrl-C or Ctrl-D ends the questions: nothing is written and init exits 130.
  let cancel: (() => void) | undefined;
  const cancelled = new Promise<never>((_, reject) => {
    cancel = () => reject(new CliExit(130, "init cancelled"));
  });
  cancelled.catch(() => {});
  rl.on("SIGINT", () => rl.close());
  rl.on("close", () => cancel?.());
  const ask = (question: string, suggestion = "") =>
    Promise.race([
      cancelled,
      new Promise<string>((resolveAnswer) => {
        rl.question(withDefault(question, suggestion), (answer) =>
          resolveAnswer(answer.trim() || suggestion),
        );
      }),
    ]);
  try {
    io.stdout.write("Set up the model (Enter takes the suggestion in brackets; provider `none` skips).\n");
    const defaultProvider: Provider =
      io.env.ANTHROPIC_API_KEY && !io.env.OPENAI_API_KEY ? "anthropic" : "openai";
    let provider = await ask(`Provider (${providers.join(", ")}):`, defaultProvider);
    while (!providers.includes(provider as Provider)) {
      if (provider === "none") return undefined;
      io.stdout.write(
        `"${provider}" is not a provider: type one of ${providers.join(", ")}, or none to skip the model.\n`,
      );
      provider = await ask(`Provider (${providers.join(", ")}):`, defaultProvider);
    }
    const chosen = provider as Provider;
    const model = await ask("Model id:", suggestedModel[chosen]);
    const baseURL = await ask(
      chosen === "openai-compatible" ? "Base URL:" : "Base URL (empty: the provider's own):",
      chosen === "openai-compatible" ? "http://127.0.0.1:11434/v1" : "",
    );
    io.stdout.write("API key (stored in .env, hidden; empty to skip): ");
    muted = true;
    const apiKey = await ask("");
    muted = false;
    io.stdout.write("\n");
    return {
      provider: chosen,
      model: model || suggestedModel[chosen],
      ...(baseURL ? { baseURL } : {}),
      ...(apiKey ? { apiKey } : {}),
    };
  } catch (error) {
    if (error instanceof CliExit) io.stdout.write("\nCancelled: nothing was written.\n");
    throw error;
  } finally {
    cancel = undefined;
    rl.close();
  }
}

/** `downcity init [dir]`: writes PROFILE.md, downcity.json (with `llm` when a model is chosen), .downcity/, .gitignore; never overwrites. */
export function registerInitCommand(program: Command, io: CliIo): void {
  program
    .command("init")
    .description(
      "Initialise a project: PROFILE.md, downcity.json (model included), .downcity/ (idempotent, never overwrites)",
    )
    .argument("[dir]", "project directory", ".")
    .addOption(new Option("--provider <provider>", "model provider").choices(providers))
    .option("--model <id>", "model id, e.g. gpt-4.1-mini, claude-sonnet-4-5, llama3.2")
    .option("--base-url <url>", "endpoint (required for openai-compatible, e.g. http://127.0.0.1:11434/v1)")
    .option("--api-key <key>", "API key, stored in .env and referenced as ${VAR} from downcity.json")
    .option(
      "--api-key-env <VAR>",
      "the .env variable holding the key (default: OPENAI_API_KEY, ANTHROPIC_API_KEY, LLM_API_KEY)",
    )
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      "\nWithout model flags in a terminal, init asks for the provider, model and base URL. See docs/models.md.",
    )
    .action(async (dir: string, options: InitOptions) => {
      const rootDir = resolve(io.cwd, dir);
      const flagged = Boolean(options.provider || options.model || options.baseUrl || options.apiKey);
      let model: ModelAnswers | undefined;
      if (flagged) {
        if (!options.provider || !options.model) {
          throw new CliUsageError(
            "--provider and --model go together, e.g. --provider openai --model gpt-4.1-mini",
          );
        }
        model = {
          provider: options.provider,
          model: options.model,
          ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
          ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        };
      } else if (io.interactive && !options.json) {
        model = await askModel(io);
      }
      if (model && options.apiKeyEnv) model.apiKeyEnv = options.apiKeyEnv;
      const api = await loadDaemonApi();
      const result = await api.initProject(rootDir, model ? { model } : {});
      printData(io, result, {
        json: options.json,
        human: () =>
          [
            `Project: ${rootDir}`,
            ...result.created.map((file) => `  created  ${file}`),
            ...result.updated.map((file) => `  updated  ${file}`),
            ...result.skipped.map((file) => `  kept     ${file} (already exists)`),
            result.created.length + result.updated.length === 0
              ? "Nothing to do: the project is already initialised."
              : "",
            result.llm ? `Model: ${result.llm.provider} ${result.llm.model}` : "",
            ...result.todo.map((line) => `Todo: ${line}`),
            result.llm
              ? "Next: `downcity doctor`, then `downcity start` and `downcity chat`."
              : "Next: choose a model (`downcity init --provider openai --model gpt-4.1-mini`, see docs/models.md), then `downcity start` and `downcity chat`.",
          ]
            .filter(Boolean)
            .join("\n"),
      });
    });
}
