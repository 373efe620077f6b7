import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  testAdapterStateStore,
  testApprovalStore,
  testContactStore,
  testContextLease,
  testHistoryStore,
  testInboxStore,
  testMemoryStore,
  testOutboxStore,
  testUsageStore,
} from "../../test.js";
import { type FileStoreOptions, openFileStore } from "./file-store.js";

// The file store as production opens it when downcity.json names no store (see createChannelHost).
const fileStore = (name: string, options: Omit<FileStoreOptions, "rootDir"> = {}) => ({
  name,
  sharedByWorkers: false,
  async create() {
    const rootDir = await mkdtemp(join(tmpdir(), "downcity-file-store-"));
    return {
      open: () => openFileStore({ rootDir, ...options }),
      cleanup: () => rm(rootDir, { recursive: true, force: true }),
    };
  },
});

testHistoryStore(fileStore("file store"));
testInboxStore(fileStore("file store"));
testOutboxStore(fileStore("file store"));
testContextLease(fileStore("file store"));
testContactStore(fileStore("file store"));
testMemoryStore(fileStore("file store"));
testUsageStore(fileStore("file store"));
testAdapterStateStore(fileStore("file store"));
testApprovalStore(fileStore("file store"));
// The other claim policy on the same files: one claimed event per context, as shared stores hand them out.
testInboxStore(fileStore("file store, group-at-a-time", { claimPolicy: "group-at-a-time" }));
