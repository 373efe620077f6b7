// Drives @downcity/core against a real model chosen by environment variables.
//   DOWNCITY_EXAMPLE_PROVIDER=openai|anthropic|openai-compatible (default: openai if OPENAI_API_KEY, anthropic if ANTHROPIC_API_KEY)
//   DOWNCITY_EXAMPLE_MODEL=<model id>   DOWNCITY_EXAMPLE_BASE_URL=<url> (openai-compatible)
// Usage: node examples/core-chat.mjs "your message"
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRuntime } from "@downcity/core";

const env = process.env;
const provider =
  env.DOWNCITY_EXAMPLE_PROVIDER ??
  (env.OPENAI_API_KEY ? "openai" : env.ANTHROPIC_API_KEY ? "anthropic" : undefined);

async function buildModel() {
  if (provider === "openai") {
    const { createOpenAI } = await import("@ai-sdk/openai");
    return createOpenAI({ apiKey: env.OPENAI_API_KEY })(env.DOWNCITY_EXAMPLE_MODEL ?? "gpt-4.1-mini");
  }
  if (provider === "anthropic") {
    const { createAnthropic } = await import("@ai-sdk/anthropic");
    return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY })(
      env.DOWNCITY_EXAMPLE_MODEL ?? "claude-sonnet-4-5",
    );
  }
  if (provider === "openai-compatible") {
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    if (!env.DOWNCITY_EXAMPLE_BASE_URL)
      throw new Error("Set DOWNCITY_EXAMPLE_BASE_URL for the openai-compatible provider.");
    return createOpenAICompatible({
      name: "example",
      baseURL: env.DOWNCITY_EXAMPLE_BASE_URL,
      apiKey: env.OPENAI_API_KEY,
    })(env.DOWNCITY_EXAMPLE_MODEL ?? "default");
  }
  return undefined;
}

const model = await buildModel();
if (!model) {
  console.error(
    "No model configured. Set OPENAI_API_KEY or ANTHROPIC_API_KEY (optionally DOWNCITY_EXAMPLE_MODEL), or\n" +
      "DOWNCITY_EXAMPLE_PROVIDER=openai-compatible with DOWNCITY_EXAMPLE_BASE_URL. Without an API key, try `downcity demo`.",
  );
  process.exit(1);
}
const rootDir = await mkdtemp(join(tmpdir(), "downcity-example-"));
const runtime = createAgentRuntime({ rootDir, model });
runtime.on((event) => {
  if (event.type === "text-delta") process.stdout.write(event.delta);
});
const result = await runtime.send({
  contextId: "example:cli",
  text: process.argv[2] ?? "Say hello in one sentence.",
});
process.stdout.write(`\n\n(${result.steps} step(s); history in ${runtime.history("example:cli").path})\n`);
await runtime.close();
