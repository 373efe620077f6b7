import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@downcity/core";
import { describe, expect, it } from "vitest";

// docs/models.md promises that every snippet is a valid downcity.json: load each one as the daemon does.
const doc = await readFile(join(import.meta.dirname, "..", "docs", "models.md"), "utf8");
const sections = doc.split(/^## /m).slice(1);
const snippets = sections.flatMap((section) => {
  const title = section.split("\n")[0] as string;
  return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => ({
    title,
    json: match[1] as string,
  }));
});
// Shell line continuations joined, so a wrapped command reads as one line.
const initLines = [...doc.replace(/\\\n\s*/g, " ").matchAll(/^downcity init (.*)$/gm)].map(
  (match) => match[1] as string,
);

describe("docs/models.md", () => {
  it("covers every provider the issue names", () => {
    const titles = sections.map((section) => section.split("\n")[0]).join(" | ");
    for (const name of ["OpenAI", "Anthropic", "Ollama", "LM Studio", "vLLM", "DeepSeek", "Qwen"]) {
      expect(titles).toContain(name);
    }
    expect(snippets.length).toBeGreaterThanOrEqual(7);
  });

  for (const { title, json } of snippets) {
    it(`${title}: the snippet loads as downcity.json`, async () => {
      const dir = await mkdtemp(join(tmpdir(), "dc-models-doc-"));
      try {
        await writeFile(join(dir, "downcity.json"), json);
        const variables = [...json.matchAll(/\$\{([A-Z_]+)\}/g)].map((match) => match[1] as string);
        const env = Object.fromEntries(variables.map((name) => [name, `value-of-${name}`]));
        const { config } = await loadConfig(dir, { env });
        expect(config.llm?.model).toBeTruthy();
        if (config.llm?.provider === "openai-compatible") expect(config.llm.baseURL).toMatch(/^https?:\/\//);
        for (const name of variables) expect(config.llm?.apiKey).toBe(`value-of-${name}`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  it("pairs each init command with the snippet it writes", () => {
    expect(initLines.length).toBeGreaterThanOrEqual(7);
    for (const line of initLines) {
      const flag = (name: string) => new RegExp(`--${name} (\\S+)`).exec(line)?.[1];
      const snippet = snippets.find(({ json }) => json.includes(`"model": "${flag("model")}"`));
      expect(snippet, line).toBeDefined();
      const llm = (JSON.parse(snippet?.json ?? "{}") as { llm: Record<string, string> }).llm;
      expect(llm.provider).toBe(flag("provider"));
      expect(llm.baseURL).toBe(flag("base-url"));
      const keyEnv = flag("api-key-env");
      if (keyEnv) expect(llm.apiKey).toBe(`\${${keyEnv}}`);
    }
  });
});
