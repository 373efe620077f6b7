import pg from "pg";
import { reconnectDelay } from "./reconnect-delay.js";
import type { ConnectionSettings } from "./sql-pool.js";

/** What a wake-up is about: the inbox, the outbox, or shell calls between workers. */
export type WakeChannel = "inbox" | "outbox" | "shell";

const channels: readonly WakeChannel[] = ["inbox", "outbox", "shell"];

/** Wake-ups for idle workers: NOTIFY when there is work, and a slow poll in case a notification is missed. */
export interface WakeListener {
  /** Calls `listener` on every wake-up of `channel`; returns the unsubscribe function. */
  on(channel: WakeChannel, listener: () => void): () => void;
  close(): Promise<void>;
}

/**
 * LISTENs on `downcity_inbox`, `downcity_outbox` and `downcity_shell` over a connection of its own.
 * When the connection drops (a server restart, a terminated session) it reconnects with backoff
 * and, once back, wakes every listener: what was notified meanwhile is found by their next claim
 * (or scan of shell calls).
 */
export function createWakeListener(
  connection: string | ConnectionSettings,
  options: { pollMs: number },
): WakeListener {
  const config: pg.ClientConfig =
    typeof connection === "string" ? { connectionString: connection, keepAlive: true } : connection;
  const listeners = {
    inbox: new Set<() => void>(),
    outbox: new Set<() => void>(),
    shell: new Set<() => void>(),
  };
  const fire = (channel: WakeChannel) => {
    for (const listener of listeners[channel]) listener();
  };
  const fireAll = () => {
    for (const channel of channels) fire(channel);
  };
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const reconnect = (attempt: number) => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect(attempt);
    }, reconnectDelay(attempt));
    retry.unref();
  };
  const connect = async (attempt: number) => {
    if (closed) return;
    const next = new pg.Client(config);
    let lost = false;
    const drop = () => {
      if (lost) return;
      lost = true;
      if (client === next) client = undefined;
      void next.end().catch(() => {});
      reconnect(0);
    };
    next.on("error", drop);
    next.on("end", drop);
    try {
      await next.connect();
      next.on("notification", (message) => {
        const channel = channels.find((name) => message.channel === `downcity_${name}`);
        if (channel) fire(channel);
      });
      await next.query(channels.map((name) => `LISTEN downcity_${name};`).join(" "));
    } catch {
      next.removeListener("end", drop);
      lost = true;
      await next.end().catch(() => {});
      reconnect(attempt + 1);
      return;
    }
    if (closed || lost) return void next.end().catch(() => {});
    client = next;
    fireAll();
  };
  void connect(0);
  const poll = setInterval(fireAll, options.pollMs);
  poll.unref();
  return {
    on(channel, listener) {
      listeners[channel].add(listener);
      return () => listeners[channel].delete(listener);
    },
    async close() {
      closed = true;
      clearInterval(poll);
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
