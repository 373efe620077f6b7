import type { FastifyInstance } from "fastify";

/** The daemon's HTTP app with its two shutdown moments: intake stops first, in-flight replies are awaited last. */
export interface DaemonHttp {
  app: FastifyInstance;
  /** Refuses new requests from now on (503 while closing) and ends idle connections. */
  stopIntake(): void;
  /** Waits for the requests still in flight; after `backstopMs` it drops the connections that hang on. */
  closed(): Promise<void>;
}

/** Wraps `app` so one component can stop its intake and another, closing later, await its requests. */
export function createDaemonHttp(app: FastifyInstance, backstopMs = 2000): DaemonHttp {
  let closing: Promise<void> | undefined;
  const stopIntake = () => {
    closing ??= app.close().then(() => undefined);
  };
  return {
    app,
    stopIntake,
    async closed() {
      stopIntake();
      // The replies of finished runs have had their chance; drop what still hangs on.
      const backstop = setTimeout(() => app.server.closeAllConnections(), backstopMs);
      try {
        await closing;
      } finally {
        clearTimeout(backstop);
      }
    },
  };
}
