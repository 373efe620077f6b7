import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { expect, test } from "vitest";
import { runBuiltCli } from "./run-built-cli.js";

// What only a model run needs: the AI SDK, its providers, zod and OpenTelemetry (which `ai` loads).
const heavyModule = /\/node_modules\/(ai|zod|@ai-sdk\/[^/]+|@opentelemetry\/[^/]+)\//;
const recorder = new URL("./record-loaded-modules.mjs", import.meta.url).pathname;
const temp = useTempDir("dc-start-up-");

/** Runs the built CLI with every resolved module URL recorded; returns the run and the URLs. */
async function loadedModules(args: string[]): Promise<{ code: number | null; urls: string[] }> {
  const dir = temp.path;
  const record = join(dir, `modules-${args.join("_")}.txt`);
  await writeFile(record, "");
  const run = await runBuiltCli(args, {
    cwd: dir,
    env: { DOWNCITY_HOME: join(dir, "home"), DOWNCITY_RECORD_MODULES: record },
    nodeArgs: ["--import", recorder],
  });
  const urls = (await readFile(record, "utf8")).split("\n").filter(Boolean);
  await rm(record, { force: true });
  return { code: run.code, urls };
}

test.each([[["--version"]], [["help"]], [["status"]], [["status", "--json"]]])(
  "downcity %j (no daemon) loads no AI SDK, zod, OpenTelemetry or provider module",
  async (args) => {
    await writeFile(join(temp.path, "downcity.json"), "{}\n");
    const { code, urls } = await loadedModules(args);
    expect(code).toBe(args[0] === "status" ? 3 : 0);
    expect(urls.some((url) => url.endsWith("/dist/main.js"))).toBe(true);
    expect(urls.filter((url) => heavyModule.test(url))).toEqual([]);
  },
);

test("the recorder sees package modules: `usage` reads its log with zod", async () => {
  await writeFile(join(temp.path, "downcity.json"), "{}\n");
  const { code, urls } = await loadedModules(["usage", "--json"]);
  expect(code).toBe(0);
  expect(urls.some((url) => /\/node_modules\/zod\//.test(url))).toBe(true);
});
