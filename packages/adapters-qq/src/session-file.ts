import { type ChannelContext, openFileChannelState } from "@downcity/core";
import { z } from "zod";

const sessionSchema = z.object({ sessionId: z.string().min(1), seq: z.number().int().min(0) });

/** A gateway session to resume: its id and the seq below the oldest event not yet durably accepted. */
export type GatewaySession = z.output<typeof sessionSchema>;

/** The key of the session in the channel's state (the file driver's `qq-session.json`). */
const sessionKey = "qq-session";

/**
 * Where the session is kept: the channel's state (the store every worker shares, so the next
 * poller resumes the session), or `qq-session.json` in the state folder of an older host.
 */
const stateOf = (context: Pick<ChannelContext, "state" | "stateDir">) =>
  context.state ?? openFileChannelState(context.stateDir);

/** Reads the saved session, or `undefined` when there is none (or it is unreadable). */
export async function readSession(
  context: Pick<ChannelContext, "state" | "stateDir">,
): Promise<GatewaySession | undefined> {
  try {
    const parsed = sessionSchema.safeParse(await stateOf(context).get(sessionKey));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Saves the session (`null` once it is over). No fsync needed: a lost write only means resuming
 * from an older seq, and the platform's replay of already-accepted events is deduplicated by the inbox.
 */
export async function writeSession(
  context: Pick<ChannelContext, "state" | "stateDir">,
  session: GatewaySession | undefined,
): Promise<void> {
  await stateOf(context).set(sessionKey, session ?? null);
}
