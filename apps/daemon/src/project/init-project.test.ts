import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { initProject } from "./init-project.js";

describe("initProject", () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("writes a loadable project, is idempotent and never overwrites user files", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-init-"));
    await writeFile(join(dir, ".gitignore"), "node_modules");
    const first = await initProject(dir);
    expect(first.created.sort()).toEqual(
      [".downcity/schema/downcity.schema.json", ".gitignore", "PROFILE.md", "downcity.json"].sort(),
    );
    const { config } = await loadConfig(dir, { env: {} });
    expect(config.$schema).toBe("./.downcity/schema/downcity.schema.json");
    await writeFile(join(dir, "PROFILE.md"), "my own profile");
    const second = await initProject(dir);
    expect(second.created).toEqual([]);
    expect(second.skipped).toHaveLength(4);
    expect(await readFile(join(dir, "PROFILE.md"), "utf8")).toBe("my own profile");
    const gitignore = await readFile(join(dir, ".gitignore"), "utf8");
    expect(gitignore.startsWith("node_modules\n")).toBe(true);
    expect(gitignore.match(/\.downcity\/\*/g)).toHaveLength(1);
  });
});

describe("initProject with a model", () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("writes llm with the key in .env as ${VAR}, and the config loads with it", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-init-model-"));
    const result = await initProject(dir, {
      model: { provider: "openai", model: "gpt-4.1-mini", apiKey: "sk-test 123" },
    });
    expect(result.created).toContain(".env");
    expect(result.todo).toEqual([]);
    const written = JSON.parse(await readFile(join(dir, "downcity.json"), "utf8"));
    expect(written.llm).toEqual({ provider: "openai", model: "gpt-4.1-mini", apiKey: "${OPENAI_API_KEY}" });
    expect(await readFile(join(dir, ".env"), "utf8")).not.toContain("sk-test 123\n");
    const { config } = await loadConfig(dir, { env: {} });
    expect(config.llm?.apiKey).toBe("sk-test 123");
  });

  it("keeps an existing .env value and an existing llm, adds llm to a config without one", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-init-model-"));
    await writeFile(join(dir, ".env"), "OTHER=1\nMY_KEY=old");
    await writeFile(join(dir, "downcity.json"), JSON.stringify({ name: "mine", execution: {} }));
    const first = await initProject(dir, {
      model: { provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "new", apiKeyEnv: "MY_KEY" },
    });
    expect(first.updated).toContain("downcity.json");
    expect(first.skipped).toContain(".env");
    expect(await readFile(join(dir, ".env"), "utf8")).toBe("OTHER=1\nMY_KEY=old");
    const written = JSON.parse(await readFile(join(dir, "downcity.json"), "utf8"));
    expect(written).toMatchObject({ name: "mine", execution: {}, llm: { apiKey: "${MY_KEY}" } });
    const second = await initProject(dir, { model: { provider: "openai", model: "other" } });
    expect(second.skipped).toContain("downcity.json");
    expect(JSON.parse(await readFile(join(dir, "downcity.json"), "utf8")).llm.provider).toBe("anthropic");
  });

  it("writes an openai-compatible endpoint without a key, and names the missing base URL", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-init-model-"));
    await expect(
      initProject(dir, { model: { provider: "openai-compatible", model: "llama3.2" } }),
    ).rejects.toMatchObject({ field: "llm.baseURL" });
    await expect(
      initProject(dir, { model: { provider: "openai-compatible", model: "m", baseURL: "not a url" } }),
    ).rejects.toMatchObject({ field: "llm.baseURL" });
    const result = await initProject(dir, {
      model: { provider: "openai-compatible", model: "llama3.2", baseURL: "http://127.0.0.1:11434/v1" },
    });
    expect(result.llm).toEqual({
      provider: "openai-compatible",
      model: "llama3.2",
      baseURL: "http://127.0.0.1:11434/v1",
    });
    expect(result.created).not.toContain(".env");
    const { config } = await loadConfig(dir, { env: {} });
    expect(config.llm?.baseURL).toBe("http://127.0.0.1:11434/v1");
  });
});
