import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { downcityPaths } from "../../paths/downcity-paths.js";
import { testAccessStore } from "../../test/access-store-conformance.js";
import { createFileAccessStore } from "./file-access-store.js";
import { openFileStore } from "./file-store.js";

const fileStore = {
  name: "file store",
  sharedByWorkers: false,
  async create() {
    const rootDir = await mkdtemp(join(tmpdir(), "downcity-access-"));
    return {
      async open() {
        const store = await openFileStore({ rootDir });
        return { ...store, access: createFileAccessStore(downcityPaths(rootDir).channelDir) };
      },
      cleanup: () => rm(rootDir, { recursive: true, force: true }),
    };
  },
};

testAccessStore(fileStore);

it("keeps each channel's access in its access.json, in the format a single worker always wrote", async () => {
  const rootDir = await mkdtemp(join(tmpdir(), "downcity-access-"));
  try {
    const channelDir = downcityPaths(rootDir).channelDir;
    await createFileAccessStore(channelDir).channel("telegram").allow({ userId: "u1" });
    const saved = JSON.parse(await readFile(join(channelDir("telegram"), "access.json"), "utf8"));
    expect(saved).toMatchObject({ approved: [{ userId: "u1", via: "cli" }], pending: [], groups: [] });
  } finally {
    await rm(rootDir, { recursive: true, force: true });
  }
});
