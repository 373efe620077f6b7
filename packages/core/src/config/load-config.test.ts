import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { downcityConfigJsonSchema } from "./config-sections.js";
import { parseEnvFile } from "./env-file.js";
import { loadConfig, writeConfigJsonSchema } from "./load-config.js";

const temp = useTempDir("downcity-config-", "each");

const write = (value: unknown) => writeFile(join(temp.path, "downcity.json"), JSON.stringify(value));

describe("loadConfig", () => {
  it("loads .env and substitutes ${VAR}; the process environment wins over .env", async () => {
    await writeFile(
      join(temp.path, ".env"),
      "# comment\nKEY_FROM_FILE=file-key\nexport MODEL='gpt-x'\nOVERRIDDEN=file\n",
    );
    await write({ llm: { provider: "openai", model: "${MODEL}", apiKey: "${KEY_FROM_FILE}-${OVERRIDDEN}" } });
    const { config } = await loadConfig(temp.path, { env: { OVERRIDDEN: "env" } });
    expect(config.llm).toMatchObject({ provider: "openai", model: "gpt-x", apiKey: "file-key-env" });
  });

  it("names the field of an unset variable", async () => {
    await write({ llm: { provider: "openai", model: "m", apiKey: "${NOPE_NOT_SET}" } });
    await expect(loadConfig(temp.path, { env: {} })).rejects.toMatchObject({
      code: "CONFIG_ENV_MISSING",
      field: "llm.apiKey",
      message: expect.stringContaining("NOPE_NOT_SET"),
    });
  });

  it("names the bad field and rejects unknown fields", async () => {
    await write({ llm: { provider: "openia", model: "m" } });
    await expect(loadConfig(temp.path, { env: {} })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      field: "llm.provider",
    });
    await write({ lanes: { maxConcurency: 3 } });
    await expect(loadConfig(temp.path, { env: {} })).rejects.toMatchObject({
      message: expect.stringContaining("maxConcurency"),
    });
  });

  it("lists every problem in one pass and suggests the key a typo meant", async () => {
    await write({
      llm: { provider: "openai", model: "", baseUrl: "http://x" },
      lanes: { maxConcurrency: 0 },
    });
    const error = (await loadConfig(temp.path, { env: {} }).catch((caught: unknown) => caught)) as {
      message: string;
      problems: Array<{ field: string; message: string }>;
    };
    expect(error.problems.map((problem) => problem.field).sort()).toEqual([
      "lanes.maxConcurrency",
      "llm.baseUrl",
      "llm.model",
    ]);
    expect(error.message).toContain('llm.baseUrl: unknown key "baseUrl"; did you mean "baseURL"?');
    expect(error.message).toContain("has 3 problems");
  });

  it("reports a trailing comma with the line and column", async () => {
    await writeFile(join(temp.path, "downcity.json"), '{\n  "name": "a",\n}\n');
    await expect(loadConfig(temp.path, { env: {} })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringMatching(/downcity\.json:2:14: a trailing comma/),
    });
  });

  it("applies core defaults and leaves plug-in sections to their plug-ins", async () => {
    await write({ lanes: {}, mcp: { servers: { everything: { type: "stdio", command: "npx" } } } });
    const { config } = await loadConfig(temp.path, { env: {} });
    expect(config.lanes?.maxConcurrency).toBe(4);
    expect(config.plugins).toEqual([]);
    expect(config.channels).toEqual({});
    expect(config.mcp).toEqual({ servers: { everything: { type: "stdio", command: "npx" } } });
  });

  it("explains a missing or unparsable file", async () => {
    await expect(loadConfig(temp.path, { env: {} })).rejects.toMatchObject({
      code: "CONFIG_NOT_FOUND",
      message: expect.stringContaining("downcity init"),
    });
    await writeFile(join(temp.path, "downcity.json"), "{ nope");
    await expect(loadConfig(temp.path, { env: {} })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });

  it("writes the generated JSON Schema, identical to the committed copy", async () => {
    const path = await writeConfigJsonSchema(temp.path);
    const generated = JSON.parse(await readFile(path, "utf8"));
    expect(generated).toEqual(downcityConfigJsonSchema());
    expect(generated.properties.llm).toBeDefined();
    const committed = JSON.parse(
      await readFile(new URL("../../downcity.schema.json", import.meta.url), "utf8"),
    );
    expect(committed).toEqual(generated);
  });
});

describe("parseEnvFile", () => {
  it("handles quotes, export, comments and blank lines", () => {
    expect(parseEnvFile("A=1\n\n# c\nexport B=\"two words\"\nC=x # trailing\nD='q'\nbad line")).toEqual({
      A: "1",
      B: "two words",
      C: "x",
      D: "q",
    });
  });
});
