import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { openConfiguredStore } from "./open-configured-store.js";

let rootDir: string;
beforeEach(async () => {
  rootDir = await mkdtemp(join(tmpdir(), "dc-store-load-"));
});
afterEach(() => rm(rootDir, { recursive: true, force: true }));

describe("openConfiguredStore", () => {
  test("a package neither the project nor the daemon has stops the start, naming store.adapter and the fix", async () => {
    await expect(
      openConfiguredStore(rootDir, { adapter: "@nowhere/no-such-store", leaseMs: 15000 }),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      field: "store.adapter",
      message: expect.stringContaining("npm install @nowhere/no-such-store"),
    });
  });

  test("a module without a store adapter export is refused", async () => {
    await writeFile(join(rootDir, "not-a-store.mjs"), "export const answer = 42;\n");
    await expect(
      openConfiguredStore(rootDir, { adapter: "./not-a-store.mjs", leaseMs: 15000 }),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      field: "store.adapter",
      message: expect.stringContaining("defineStoreAdapter"),
    });
  });

  test("a store that cannot open stops the start naming store.url, without the URL's secret", async () => {
    await writeFile(
      join(rootDir, "down-store.mjs"),
      'export default { name: "down", async open() { throw new Error("connect ECONNREFUSED 127.0.0.1:1"); } };\n',
    );
    const error = await openConfiguredStore(rootDir, {
      adapter: "./down-store.mjs",
      url: "postgres://user:s3cret@127.0.0.1:1/db",
      leaseMs: 15000,
    }).then(
      () => new Error("opened"),
      (caught: unknown) => caught as Error & { field?: string },
    );
    expect(error).toMatchObject({ code: "CONFIG_INVALID", field: "store.url" });
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.message).not.toContain("s3cret");
  });

  test("opens the adapter's store with the section's url and lease", async () => {
    await writeFile(
      join(rootDir, "echo-store.mjs"),
      'export default { name: "echo", async open(options) { return { kind: "echo", options }; } };\n',
    );
    const store = (await openConfiguredStore(rootDir, {
      adapter: "./echo-store.mjs",
      url: "echo://x",
      leaseMs: 4000,
      poolSize: 3,
    })) as unknown as { kind: string; options: Record<string, unknown> };
    expect(store.kind).toBe("echo");
    expect(store.options).toEqual({ rootDir, url: "echo://x", leaseMs: 4000, options: { poolSize: 3 } });
  });
});
