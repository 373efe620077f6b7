import pg from "pg";

/** Wake-ups for idle workers: NOTIFY when there is work, and a slow poll in case a notification is missed. */
export interface WakeListener {
  /** Calls `listener` on every wake-up of `channel`; returns the unsubscribe function. */
  on(channel: "inbox" | "outbox", listener: () => void): () => void;
  close(): Promise<void>;
}

/** LISTENs on `downcity_inbox` and `downcity_outbox` over a connection of its own, reconnecting when it drops. */
export function createWakeListener(url: string, options: { pollMs: number }): WakeListener {
  const listeners = { inbox: new Set<() => void>(), outbox: new Set<() => void>() };
  const fire = (channel: "inbox" | "outbox") => {
    for (const listener of listeners[channel]) listener();
  };
  let closed = false;
  let client: pg.Client | undefined;
  const connect = async () => {
    while (!closed) {
      const next = new pg.Client({ connectionString: url, keepAlive: true });
      try {
        await next.connect();
        next.on("notification", (message) =>
          fire(message.channel === "downcity_outbox" ? "outbox" : "inbox"),
        );
        next.on("error", () => {
          if (!closed) setTimeout(() => void connect(), 1000).unref();
        });
        await next.query("LISTEN downcity_inbox");
        await next.query("LISTEN downcity_outbox");
        client = next;
        // Anything notified while this connection was down is found by the wake-up below.
        fire("inbox");
        fire("outbox");
        return;
      } catch {
        await next.end().catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };
  void connect();
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
      await client?.end().catch(() => {});
    },
  };
}
