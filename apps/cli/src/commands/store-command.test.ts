import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { CliIo } from "../cli-io.js";
import { runCli } from "../run-cli.js";

let project: string;
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

/** Runs `downcity <argv>` in this process with captured output. */
async function run(argv: string[], cwd: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => {
    out += String(chunk);
  });
  stderr.on("data", (chunk) => {
    err += String(chunk);
  });
  const io: CliIo = {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env: { ...process.env, DOWNCITY_HOME: join(cwd, "home") },
    cwd,
    interactive: false,
  };
  const code = await runCli({ argv, io });
  return { code, stdout: out, stderr: err };
}

describe("downcity store import", () => {
  it("says the project has no shared store to import into, naming the section to add", async () => {
    project = await mkdtemp(join(tmpdir(), "dc-store-cli-"));
    await writeFile(join(project, "downcity.json"), "{}\n");
    const result = await run(["store", "import", "--dry-run"], project);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('downcity.json has no "store" section');
    expect(result.stderr).toContain("@downcity/store-postgres");
    const json = await run(["store", "import", "--json"], project);
    expect(json.code).toBe(1);
    expect(`${json.stdout}${json.stderr}`).toContain("CONFIG_INVALID");
  });

  it("refuses an unknown flag as a usage error", async () => {
    project = await mkdtemp(join(tmpdir(), "dc-store-cli-"));
    await writeFile(join(project, "downcity.json"), "{}\n");
    expect((await run(["store", "import", "--everything"], project)).code).toBe(2);
  });
});
