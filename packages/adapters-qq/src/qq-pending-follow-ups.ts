import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "@downcity/core";
import { z } from "zod";
import type { QqPart } from "./qq-message-parts.js";

const storedPartSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text"), markdown: z.string().optional(), plain: z.string() }),
  z.object({
    kind: z.literal("file"),
    name: z.string(),
    mediaType: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
]);
const followUpSchema = z.object({
  key: z.string().min(1),
  chatType: z.enum(["direct", "group"]),
  createdAt: z.string(),
  attempts: z.number().int().min(0),
  parts: z.array(storedPartSchema).min(1),
});
const fileSchema = z.record(z.string(), z.array(followUpSchema));

/** A message QQ would not let the bot send on its own, kept until the chat's next message. */
export type PendingFollowUp = z.output<typeof followUpSchema>;

/** Most messages kept per chat; the oldest go first (a chat nobody writes to cannot pile up forever). */
export const maxPendingPerChat = 20;

/**
 * The follow-ups of an instance waiting for a chat's next message (`qq-pending.json` in its state
 * folder, file bytes beside it under `qq-pending-files/`, all written with fsync before `keep`
 * resolves: the outbox counts the message as sent once it does). Keeping is idempotent per key.
 */
export interface QqPendingFollowUps {
  keep(
    chatId: string,
    followUp: { key: string; chatType: "direct" | "group"; parts: QqPart[] },
  ): Promise<void>;
  list(chatId: string): Promise<PendingFollowUp[]>;
  /** The part as it can be posted again (a file's bytes read back). */
  load(part: PendingFollowUp["parts"][number]): Promise<QqPart>;
  remove(chatId: string, key: string): Promise<void>;
  /** Counts a failed delivery of `key` and returns the count so far. */
  failed(chatId: string, key: string): Promise<number>;
}

// A follow-up's parts as kept: texts as they are, files by hash with their bytes beside the list.
async function storeParts(filesDir: string, parts: QqPart[]): Promise<PendingFollowUp["parts"]> {
  const stored: PendingFollowUp["parts"] = [];
  for (const part of parts) {
    if (part.kind === "text") {
      stored.push({ kind: "text", plain: part.plain, ...(part.markdown ? { markdown: part.markdown } : {}) });
      continue;
    }
    const sha256 = createHash("sha256").update(part.data).digest("hex");
    await mkdir(filesDir, { recursive: true });
    await writeFileAtomic(join(filesDir, sha256), part.data);
    stored.push({ kind: "file", name: part.name, mediaType: part.mediaType, sha256 });
  }
  return stored;
}

// Removes the bytes of files no kept follow-up refers to any more.
async function removeUnusedFiles(filesDir: string, all: Record<string, PendingFollowUp[]>) {
  const used = new Set(
    Object.values(all).flatMap((list) =>
      list.flatMap((entry) => entry.parts.flatMap((part) => (part.kind === "file" ? [part.sha256] : []))),
    ),
  );
  for (const name of await readdir(filesDir).catch(() => [] as string[]))
    if (!used.has(name)) await rm(join(filesDir, name), { force: true });
}

/** Opens the pending follow-ups kept in `stateDir`. */
export function createQqPendingFollowUps(stateDir: string): QqPendingFollowUps {
  const path = join(stateDir, "qq-pending.json");
  const filesDir = join(stateDir, "qq-pending-files");
  let queue: Promise<unknown> = Promise.resolve();
  // One change at a time, read-modify-write, so two chats' follow-ups never overwrite each other.
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const read = async () =>
    fileSchema.safeParse(JSON.parse(await readFile(path, "utf8").catch(() => "{}"))).data ?? {};
  const write = (all: Record<string, PendingFollowUp[]>) => writeFileAtomic(path, JSON.stringify(all));
  // Files are written inside the same turn as the list, so a cleanup never sees them unreferenced.
  const change = (
    chatId: string,
    edit: (list: PendingFollowUp[]) => PendingFollowUp[] | Promise<PendingFollowUp[]>,
  ) =>
    serial(async () => {
      const all = await read();
      const list = await edit(all[chatId] ?? []);
      if (list.length) all[chatId] = list;
      else delete all[chatId];
      await write(all);
      await removeUnusedFiles(filesDir, all);
    });
  return {
    keep: (chatId, followUp) =>
      change(chatId, async (list) => {
        if (list.some((kept) => kept.key === followUp.key)) return list;
        const parts = await storeParts(filesDir, followUp.parts);
        const entry = { ...followUp, createdAt: new Date().toISOString(), attempts: 0, parts };
        return [...list, entry].slice(-maxPendingPerChat);
      }),
    list: (chatId) => serial(async () => (await read())[chatId] ?? []),
    async load(part) {
      if (part.kind === "text")
        return { kind: "text", plain: part.plain, ...(part.markdown ? { markdown: part.markdown } : {}) };
      return {
        kind: "file",
        name: part.name,
        mediaType: part.mediaType,
        data: await readFile(join(filesDir, part.sha256)),
      };
    },
    remove: (chatId, key) => change(chatId, (list) => list.filter((entry) => entry.key !== key)),
    async failed(chatId, key) {
      let attempts = 0;
      await change(chatId, (list) =>
        list.map((entry) => {
          if (entry.key !== key) return entry;
          attempts = entry.attempts + 1;
          return { ...entry, attempts };
        }),
      );
      return attempts;
    },
  };
}
