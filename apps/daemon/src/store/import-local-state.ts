import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  createFileAccessStore,
  createFileMemoryStore,
  createUsageLog,
  DowncityError,
  type DowncityStore,
  decodeContextId,
  downcityPaths,
  type MemoryScope,
  openFileStore,
  type UsageRecord,
} from "@downcity/core";

/** The kinds of local state `importLocalState` copies, in the order it copies them. */
export const importKinds = ["history", "memory", "contacts", "tasks", "access", "usage"] as const;
export type ImportKind = (typeof importKinds)[number];

/** What one kind came to: items copied, and items the store already had (left as they are). */
export interface ImportCount {
  imported: number;
  present: number;
}

/** The outcome of `importLocalState`: counts per kind, and whether it only counted (`dryRun`). */
export interface ImportReport {
  dryRun: boolean;
  counts: Record<ImportKind, ImportCount>;
}

const listDir = async (dir: string) => {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
};

const missingStore = (kind: string) =>
  new DowncityError(
    "CONFIG_INVALID",
    `The store in downcity.json keeps no ${kind}: import into a store that does (such as @downcity/store-postgres).`,
    { field: "store.adapter" },
  );

const usageKey = (record: UsageRecord) =>
  [record.requestId, record.step, record.at, record.purpose ?? "", record.model].join("\u0000");

/**
 * Copies the project's local `.downcity/` state (history, memory, contacts, tasks with their runs,
 * access approvals and groups, usage) into `store`, idempotently: what the store already has is
 * left as it is (a message or usage record by its id, memory of a scope that has any, a task by
 * its id), so running it twice copies nothing the second time. Pending pairing codes (one hour)
 * are not copied. `dryRun` only counts. `onProgress` hears each kind as it finishes.
 */
export async function importLocalState(options: {
  rootDir: string;
  store: DowncityStore;
  dryRun?: boolean;
  onProgress?(kind: ImportKind, count: ImportCount): void;
}): Promise<ImportReport> {
  const { rootDir, store } = options;
  const dryRun = options.dryRun ?? false;
  const paths = downcityPaths(rootDir);
  const counts = Object.fromEntries(importKinds.map((kind) => [kind, { imported: 0, present: 0 }])) as Record<
    ImportKind,
    ImportCount
  >;
  const files = await openFileStore({ rootDir });
  const source: ImportSource = { rootDir, paths, files, store, dryRun };
  try {
    for (const kind of importKinds) {
      await copiers[kind](source, counts[kind]);
      options.onProgress?.(kind, counts[kind]);
    }
  } finally {
    await files.close();
  }
  return { dryRun, counts };
}

/** What each kind's copy reads from and writes to. */
interface ImportSource {
  rootDir: string;
  paths: ReturnType<typeof downcityPaths>;
  files: DowncityStore;
  store: DowncityStore;
  dryRun: boolean;
}

const copiers: Record<ImportKind, (source: ImportSource, count: ImportCount) => Promise<void>> = {
  history: importHistory,
  memory: importMemory,
  contacts: importContacts,
  tasks: ({ paths, store, dryRun }, count) => importTasks(paths.tasksDir, store, dryRun, count),
  access: importAccess,
  usage: importUsage,
};

/** Each context's messages the store lacks (by id), appended in order. */
async function importHistory({ paths, files, store, dryRun }: ImportSource, count: ImportCount) {
  for (const entry of await listDir(paths.contextsDir)) {
    if (!entry.isDirectory()) continue;
    const contextId = decodeContextId(entry.name);
    const local = await files.history.context(contextId).read();
    if (local.length === 0) continue;
    const target = store.history.context(contextId);
    const known = new Set((await target.read()).map((message) => message.id));
    const fresh = local.filter((message) => !known.has(message.id));
    count.present += local.length - fresh.length;
    count.imported += fresh.length;
    if (!dryRun && fresh.length > 0) await target.append(fresh);
  }
}

/** The profile's and each context's memory, into scopes that have none in the store. */
async function importMemory({ rootDir, store, dryRun }: ImportSource, count: ImportCount) {
  const local = createFileMemoryStore({ rootDir });
  const scopes: MemoryScope[] = [
    { kind: "profile" },
    ...(await local.contexts()).map((contextId): MemoryScope => ({ kind: "context", contextId })),
  ];
  for (const scope of scopes) {
    const documents = await local.read(scope);
    if (!documents.primary && documents.meta === undefined) continue;
    if (!store.memory) throw missingStore("memory");
    if ((await store.memory.read(scope)).primary) {
      count.present++;
      continue;
    }
    count.imported++;
    if (dryRun) continue;
    await store.memory.update(scope, async (writer) => {
      if ((await writer.read()).primary) return;
      await writer.writePrimary(documents.primary);
      if (documents.meta !== undefined) await writer.writeMeta(documents.meta);
    });
  }
}

/** Contacts the store lacks or saw less recently. */
async function importContacts({ files, store, dryRun }: ImportSource, count: ImportCount) {
  const local = await files.contacts?.list();
  if (!local || local.length === 0) return;
  if (!store.contacts) throw missingStore("contacts");
  for (const { id, ...contact } of local) {
    const known = await store.contacts.get(id);
    if (known && known.lastSeen >= contact.lastSeen) {
      count.present++;
      continue;
    }
    count.imported++;
    if (!dryRun) await store.contacts.seen(contact);
  }
}

/** Each channel's approved users and groups let in (pending codes expire within the hour: not copied). */
async function importAccess({ paths, store, dryRun }: ImportSource, count: ImportCount) {
  const local = createFileAccessStore((name) => join(paths.channelsDir, name));
  for (const entry of await listDir(paths.channelsDir)) {
    if (!entry.isDirectory()) continue;
    const snapshot = await local.channel(entry.name).read();
    if (snapshot.approved.length + snapshot.groups.length === 0) continue;
    if (!store.access) throw missingStore("access");
    const target = store.access.channel(entry.name);
    const known = await target.read();
    const users = new Set(known.approved.map((user) => user.userId));
    const groups = new Set(known.groups.map((group) => group.chatId));
    for (const user of snapshot.approved) {
      if (users.has(user.userId)) count.present++;
      else {
        count.imported++;
        if (!dryRun)
          await target.allow({ userId: user.userId, ...(user.username ? { username: user.username } : {}) });
      }
    }
    for (const group of snapshot.groups) {
      if (groups.has(group.chatId)) count.present++;
      else {
        count.imported++;
        if (!dryRun)
          await target.allowGroup({ chatId: group.chatId, ...(group.title ? { title: group.title } : {}) });
      }
    }
  }
}

/** Usage records the store lacks (by run, step, time, purpose and model). */
async function importUsage({ rootDir, store, dryRun }: ImportSource, count: ImportCount) {
  const local = await createUsageLog({ rootDir }).read();
  if (local.length === 0) return;
  if (!store.usage) throw missingStore("usage");
  const known = new Set((await store.usage.read()).map(usageKey));
  for (const record of local) {
    if (known.has(usageKey(record))) {
      count.present++;
      continue;
    }
    known.add(usageKey(record));
    count.imported++;
    if (!dryRun) await store.usage.append(record);
  }
}

/** Task definitions (`<id>/task.md`) and their runs (`<id>/<runId>/run.json`). */
async function importTasks(tasksDir: string, store: DowncityStore, dryRun: boolean, count: ImportCount) {
  for (const entry of await listDir(tasksDir)) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const text = await readFile(join(tasksDir, entry.name, "task.md"), "utf8").catch(() => undefined);
    if (text === undefined) continue;
    if (!store.tasks) throw missingStore("tasks");
    if ((await store.tasks.read(entry.name)) !== undefined) count.present++;
    else {
      count.imported++;
      if (!dryRun) await store.tasks.write(entry.name, text, { create: true });
    }
    const known = new Set((await store.tasks.runs(entry.name, 100_000)).map((run) => run.runId));
    for (const runEntry of await listDir(join(tasksDir, entry.name))) {
      if (!runEntry.isDirectory() || runEntry.name.startsWith(".")) continue;
      const runText = await readFile(join(tasksDir, entry.name, runEntry.name, "run.json"), "utf8").catch(
        () => undefined,
      );
      if (runText === undefined) continue;
      let run: { taskId?: string; runId?: string; status?: string };
      try {
        run = JSON.parse(runText);
      } catch (error) {
        throw new DowncityError(
          "INVALID_INPUT",
          `${join(tasksDir, entry.name, runEntry.name, "run.json")} is not valid JSON (${(error as Error).message}); fix or move it, then import again (what was copied stays).`,
        );
      }
      if (typeof run.runId !== "string" || typeof run.status !== "string") continue;
      if (known.has(run.runId)) {
        count.present++;
        continue;
      }
      count.imported++;
      if (!dryRun)
        await store.tasks.saveRun({ ...run, taskId: entry.name, runId: run.runId, status: run.status });
    }
  }
}
