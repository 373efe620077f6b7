import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until, watchOutput } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { cliMain, runBuiltCli } from "../../test/run-built-cli.js";

// `script` (util-linux) gives the CLI a real terminal, so the prompts run as a user sees them.
const hasScript = spawnSync("script", ["--version"]).status === 0;

/** `downcity init <dir>` in a terminal; `answer(prompt, keys)` types `keys` once `prompt` shows, in order. */
function initInTerminal(dir: string, env: Record<string, string> = {}) {
  const child = spawn("script", ["-qfec", `"${process.execPath}" "${cliMain}" init "${dir}"`, "/dev/null"], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const output = watchOutput(child.stdout);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let seen = 0;
  const answer = async (prompt: string, keys: string) => {
    const shown = () => output.text.indexOf(prompt, seen) >= 0;
    await until(shown, () => `prompt "${prompt}" in:\n${output.text}`, 15_000);
    seen = output.text.indexOf(prompt, seen) + prompt.length;
    child.stdin.write(keys);
  };
  return { answer, exited, output };
}

describe("downcity init", () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("writes llm from flags, keeping the key in .env", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-init-cli-"));
    const run = await runBuiltCli(
      [
        "init",
        dir,
        "--provider",
        "anthropic",
        "--model",
        "claude-sonnet-4-5",
        "--api-key",
        "sk-ant-1",
        "--json",
      ],
      { env: { ANTHROPIC_API_KEY: undefined } },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).llm).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      apiKey: "${ANTHROPIC_API_KEY}",
    });
    expect(await readFile(join(dir, ".env"), "utf8")).toBe("ANTHROPIC_API_KEY=sk-ant-1\n");
  });

  it("rejects a provider outside the list and --model without --provider (exit 2)", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-init-cli-"));
    expect((await runBuiltCli(["init", dir, "--provider", "gemini", "--model", "x"])).code).toBe(2);
    expect((await runBuiltCli(["init", dir, "--model", "x"])).code).toBe(2);
  });

  it("without flags and without a terminal keeps writing no llm", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-init-cli-"));
    const run = await runBuiltCli(["init", dir], { input: "" });
    expect(run.code).toBe(0);
    expect(JSON.parse(await readFile(join(dir, "downcity.json"), "utf8")).llm).toBeUndefined();
  });

  it.skipIf(!hasScript)(
    "asks provider, model and base URL in a terminal, pre-filled, and hides the key",
    async () => {
      dir = await mkdtemp(join(tmpdir(), "dc-init-cli-"));
      const { answer, exited, output } = initInTerminal(dir, { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" });
      // Ctrl-U clears the pre-filled suggestion; a bare Enter keeps it.
      await answer("Provider (", "\x15openai-compatible\r");
      await answer("Model id: ", "\x15qwen2.5:7b\r");
      await answer("Base URL: ", "\r");
      await answer("API key", "secret-typed-key\r");
      expect(await exited).toBe(0);
      expect(output.text).toContain("http://127.0.0.1:11434/v1");
      expect(output.text).not.toContain("secret-typed-key");
      expect(JSON.parse(await readFile(join(dir, "downcity.json"), "utf8")).llm).toEqual({
        provider: "openai-compatible",
        model: "qwen2.5:7b",
        baseURL: "http://127.0.0.1:11434/v1",
        apiKey: "${LLM_API_KEY}",
      });
      expect(await readFile(join(dir, ".env"), "utf8")).toBe("LLM_API_KEY=secret-typed-key\n");
    },
  );

  it.skipIf(!hasScript)(
    "shows each suggestion in brackets, takes it on Enter, and explains an answer that is not a provider",
    async () => {
      dir = await mkdtemp(join(tmpdir(), "dc-init-cli-"));
      const { answer, exited } = initInTerminal(dir, { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" });
      await answer("openai-compatible): [openai] ", "antropic\r");
      await answer('"antropic" is not a provider: type one of openai, anthropic, openai-compatible', "");
      await answer("openai-compatible): [openai] ", "anthropic\r");
      await answer("Model id: [claude-sonnet-4-5] ", "\r");
      await answer("Base URL (empty: the provider's own): ", "\r");
      await answer("API key", "\r");
      expect(await exited).toBe(0);
      expect(JSON.parse(await readFile(join(dir, "downcity.json"), "utf8")).llm).toMatchObject({
        provider: "anthropic",
        model: "claude-sonnet-4-5",
      });
    },
  );

  it.skipIf(!hasScript)("Ctrl-C at a question writes nothing and exits 130", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-init-cli-"));
    const { answer, exited, output } = initInTerminal(dir);
    await answer("Provider (", "\r");
    await answer("Model id: ", "\x03");
    expect(await exited).toBe(130);
    expect(output.text).toContain("Cancelled: nothing was written.");
    await expect(readFile(join(dir, "downcity.json"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });
});
