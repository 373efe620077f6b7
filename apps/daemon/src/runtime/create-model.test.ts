import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@downcity/core";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { generateText, Output } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createModel } from "./create-model.js";

describe("createModel", () => {
  let server: OpenAICompatibleServer;
  let dir: string;
  beforeAll(async () => {
    server = await startOpenAICompatibleServer({ apiKey: "sk-from-env", respond: () => '{"ok":true}' });
    dir = await mkdtemp(join(tmpdir(), "dc-model-"));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const structuredCall = async (llm: Record<string, unknown>) => {
    await writeFile(join(dir, "downcity.json"), JSON.stringify({ llm }));
    const { config } = await loadConfig(dir, { env: { SCRIPTED_KEY: "sk-from-env" } });
    const choice = await createModel(config.llm, {});
    if (!choice.model) throw new Error(choice.hint);
    const before = server.requests.length;
    const { output } = await generateText({
      model: choice.model,
      prompt: "say ok",
      output: Output.object({ schema: z.object({ ok: z.boolean() }), name: "probe" }),
    });
    expect(output).toEqual({ ok: true });
    return server.requests[before] as { model: string; response_format?: { type: string } };
  };

  it("openai-compatible sends the JSON schema by default (structuredOutputs) and resolves ${ENV} keys", async () => {
    const body = await structuredCall({
      provider: "openai-compatible",
      model: "scripted",
      baseURL: server.url,
      apiKey: "${SCRIPTED_KEY}",
    });
    expect(body.model).toBe("scripted");
    expect(body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "probe", schema: { type: "object", properties: { ok: { type: "boolean" } } } },
    });
  });

  it("openai-compatible with structuredOutputs false sends no schema", async () => {
    const body = await structuredCall({
      provider: "openai-compatible",
      model: "scripted",
      baseURL: server.url,
      apiKey: "${SCRIPTED_KEY}",
      structuredOutputs: false,
    });
    expect(body.response_format?.type).not.toBe("json_schema");
  });

  it("openai with a baseURL talks chat-completions to that server", async () => {
    const body = await structuredCall({
      provider: "openai",
      model: "scripted",
      baseURL: server.url,
      apiKey: "${SCRIPTED_KEY}",
    });
    expect(body.model).toBe("scripted");
  });

  it("gives a hint naming the field to set when no model is usable", async () => {
    expect((await createModel(undefined, {})).hint).toContain('"llm"');
    const openai = await createModel(
      { provider: "openai", model: "gpt-4.1-mini", structuredOutputs: true, vision: true },
      {},
    );
    expect(openai.hint).toContain('"llm.apiKey"');
    const anthropic = await createModel(
      { provider: "anthropic", model: "claude-haiku-4-5", structuredOutputs: true, vision: true },
      {},
    );
    expect(anthropic.hint).toContain('"llm.apiKey"');
    const compatible = await createModel(
      { provider: "openai-compatible", model: "local", structuredOutputs: true, vision: true },
      {},
    );
    expect(compatible.hint).toContain('"llm.baseURL"');
    const fromEnv = await createModel(
      { provider: "anthropic", model: "claude-haiku-4-5", structuredOutputs: true, vision: true },
      { ANTHROPIC_API_KEY: "sk-ant" },
    );
    expect(fromEnv.model).toBeDefined();
  });
});
