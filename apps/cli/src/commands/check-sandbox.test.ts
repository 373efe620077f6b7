import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { checkSandbox } from "./check-sandbox.js";

test("off, on with a working bwrap, and a failure naming the package when bwrap is missing", async () => {
  expect(await checkSandbox({}, process.env)).toMatchObject({
    name: "sandbox",
    status: "skip",
    detail: /^off/,
  });
  expect(
    await checkSandbox({ sandbox: { enabled: true, network: false, writable: ["."] } }, process.env),
  ).toMatchObject({
    status: "ok",
    detail: expect.stringMatching(/^on: .*bwrap; writable \.; network off; private \/tmp$/),
  });
  const empty = mkdtempSync(join(tmpdir(), "dc-no-bwrap-"));
  try {
    const missing = await checkSandbox({ sandbox: { enabled: true } }, { PATH: empty });
    expect(missing).toMatchObject({ status: "fail", detail: expect.stringMatching(/bubblewrap/) });
    expect(missing.fix).toMatch(/apt-get install bubblewrap/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
