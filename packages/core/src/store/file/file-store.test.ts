import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testContextLease, testHistoryStore, testInboxStore, testOutboxStore } from "../test.js";
import { openFileStore } from "./file-store.js";

const fileStore = {
  name: "file store",
  sharedByWorkers: false,
  async create() {
    const rootDir = await mkdtemp(join(tmpdir(), "downcity-file-store-"));
    return {
      open: () => openFileStore({ rootDir }),
      cleanup: () => rm(rootDir, { recursive: true, force: true }),
    };
  },
};

testHistoryStore(fileStore);
testInboxStore(fileStore);
testOutboxStore(fileStore);
testContextLease(fileStore);
