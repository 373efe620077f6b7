import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "@downcity/core";
import { z } from "zod";

/** One part of an outgoing message: a text, or a file with its bytes. */
export type WeixinPart =
  | { kind: "text"; text: string }
  | { kind: "file"; name: string; mediaType: string; data: Uint8Array };

const storedPartSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text"), text: z.string() }),
  z.object({
    kind: z.literal("file"),
    name: z.string(),
    mediaType: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
]);
const followUpSchema = z.object({
  key: z.string().min(1),
  createdAt: z.string(),
  attempts: z.number().int().min(0),
  parts: z.array(storedPartSchema).min(1),
});
const fileSchema = z.record(z.string(), z.array(followUpSchema));

/** A message iLink would not let the bot send yet (no fresh context token), kept for the chat's next message. */
export type PendingFollowUp = z.output<typeof followUpSchema>;

/** Most messages kept per chat; the oldest go first. */
export const maxPendingPerChat = 20;

/**
 * The follow-ups waiting for a chat's next message (`weixin-pending.json` in the state folder, file bytes
 * under `weixin-pending-files/`, written with fsync before `keep` resolves: the outbox counts the message
 * as sent once it does). Keeping is idempotent per key.
 */
export interface WeixinPendingFollowUps {
  keep(chatId: string, followUp: { key: string; parts: WeixinPart[] }): Promise<void>;
  list(chatId: string): Promise<PendingFollowUp[]>;
  load(part: PendingFollowUp["parts"][number]): Promise<WeixinPart>;
  remove(chatId: string, key: string): Promise<void>;
  /** Counts a failed delivery of `key` and returns the count so far. */
  failed(chatId: string, key: string): Promise<number>;
}

/** Opens the pending follow-ups kept in `stateDir`. */
export function createWeixinPendingFollowUps(stateDir: string): WeixinPendingFollowUps {
  const path = join(stateDir, "weixin-pending.json");
  const filesDir = join(stateDir, "weixin-pending-files");
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const read = async () =>
    fileSchema.safeParse(JSON.parse(await readFile(path, "utf8").catch(() => "{}"))).data ?? {};
  const removeUnused = async (all: Record<string, PendingFollowUp[]>) => {
    const used = new Set(
      Object.values(all).flatMap((list) =>
        list.flatMap((entry) => entry.parts.flatMap((part) => (part.kind === "file" ? [part.sha256] : []))),
      ),
    );
    for (const name of await readdir(filesDir).catch(() => [] as string[]))
      if (!used.has(name)) await rm(join(filesDir, name), { force: true });
  };
  const change = (chatId: string, edit: (list: PendingFollowUp[]) => Promise<PendingFollowUp[]>) =>
    serial(async () => {
      const all = await read();
      const list = await edit(all[chatId] ?? []);
      if (list.length) all[chatId] = list;
      else delete all[chatId];
      await writeFileAtomic(path, JSON.stringify(all));
      await removeUnused(all);
    });
  const store = async (parts: WeixinPart[]): Promise<PendingFollowUp["parts"]> => {
    const stored: PendingFollowUp["parts"] = [];
    for (const part of parts) {
      if (part.kind === "text") {
        stored.push(part);
        continue;
      }
      const sha256 = createHash("sha256").update(part.data).digest("hex");
      await mkdir(filesDir, { recursive: true });
      await writeFileAtomic(join(filesDir, sha256), part.data);
      stored.push({ kind: "file", name: part.name, mediaType: part.mediaType, sha256 });
    }
    return stored;
  };
  return {
    keep: (chatId, followUp) =>
      change(chatId, async (list) => {
        if (list.some((kept) => kept.key === followUp.key)) return list;
        const entry = {
          key: followUp.key,
          createdAt: new Date().toISOString(),
          attempts: 0,
          parts: await store(followUp.parts),
        };
        return [...list, entry].slice(-maxPendingPerChat);
      }),
    list: (chatId) => serial(async () => (await read())[chatId] ?? []),
    async load(part) {
      if (part.kind === "text") return part;
      const data = await readFile(join(filesDir, part.sha256));
      return { kind: "file", name: part.name, mediaType: part.mediaType, data };
    },
    remove: (chatId, key) => change(chatId, async (list) => list.filter((entry) => entry.key !== key)),
    async failed(chatId, key) {
      let attempts = 0;
      await change(chatId, async (list) =>
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
