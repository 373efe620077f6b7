import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const sessionSchema = z.object({ sessionId: z.string().min(1), seq: z.number().int().min(0) });

/** A gateway session to resume: its id and the seq below the oldest event not yet durably accepted. */
export type GatewaySession = z.output<typeof sessionSchema>;

const fileName = "qq-session.json";

/** Reads the saved session from `stateDir`, or `undefined` when there is none (or it is unreadable). */
export async function readSessionFile(stateDir: string): Promise<GatewaySession | undefined> {
  try {
    const parsed = sessionSchema.safeParse(JSON.parse(await readFile(join(stateDir, fileName), "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Saves the session atomically (temp file + rename). No fsync: a lost write only means resuming from an older
 * seq, and the platform's replay of already-accepted events is deduplicated by the inbox.
 */
export async function writeSessionFile(stateDir: string, session: GatewaySession | undefined): Promise<void> {
  const target = join(stateDir, fileName);
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(session ?? null));
  await rename(temporary, target);
}
