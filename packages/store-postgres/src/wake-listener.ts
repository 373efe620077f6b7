import pg from "pg";
import { reconnectDelay } from "./reconnect-delay.js";
import type { ConnectionSettings } from "./sql-pool.js";

/** Wake-ups for idle workers: NOTIFY when there is work, and a slow poll in case a notification is missed. */
export interface WakeListener {
  /** Calls `listener` on every wake-up of `channel`; returns the unsubscribe function. */
  on(channel: "inbox" | "outbox", listener: () => void): () => void;
  close(): Promise<void>;
}

/**
 * LISTENs on `downcity_inbox` and `downcity_outbox` over a connection of its own. When the
 * connection drops (a server restart, a terminated session) it reconnects with backoff and, once
 * back, wakes every listener: what was notified meanwhile is found by their next claim.
 */
export function createWakeListener(
  connection: string | ConnectionSettings,
  options: { pollMs: number },
): WakeListener {
  const config: pg.ClientConfig =
    typeof connection === "string" ? { connectionString: connection, keepAlive: true } : connection;
  const listeners = { inbox: new Set<() => void>(), outbox: new Set<() => void>() };
  const fire = (channel: "inbox" | "outbox") => {
    for (const listener of listeners[channel]) listener();
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
      next.on("notification", (message) => fire(message.channel === "downcity_outbox" ? "outbox" : "inbox"));
      await next.query("LISTEN downcity_inbox");
      await next.query("LISTEN downcity_outbox");
    } catch {
      next.removeListener("end", drop);
      lost = true;
      await next.end().catch(() => {});
      reconnect(attempt + 1);
      return;
    }
    if (closed || lost) return void next.end().catch(() => {});
    client = next;
    fire("inbox");
    fire("outbox");
  };
  void connect(0);
  const poll = setInterval(() => {
    fire("inbox");
    fire("outbox");
  }, options.pollMs);
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
