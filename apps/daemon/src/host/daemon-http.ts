import type { PluginStatus } from "@downcity/core";
import type { FastifyInstance } from "fastify";

/** The daemon's HTTP app with its two shutdown moments: intake stops first, in-flight replies are awaited last. */
export interface DaemonHttp {
  app: FastifyInstance;
  /** Sets what `GET /api/plugins` reports (nothing until the plug-ins component hands over its statuses). */
  servePluginStatus(status: () => PluginStatus[]): void;
  /** Refuses new requests from now on (503 while closing) and ends idle connections. */
  stopIntake(): void;
  /** Waits for the requests still in flight; after `backstopMs` it drops the connections that hang on. */
  closed(): Promise<void>;
}

/**
 * Builds the app with `build` (handed what `GET /api/plugins` serves) and wraps it, so one component
 * can stop its intake and another, closing later, await its requests.
 */
export function createDaemonHttp(
  build: (pluginStatus: () => PluginStatus[]) => FastifyInstance,
  backstopMs = 2000,
): DaemonHttp {
  let closing: Promise<void> | undefined;
  let pluginStatus: () => PluginStatus[] = () => [];
  const app = build(() => pluginStatus());
  const stopIntake = () => {
    closing ??= app.close().then(() => undefined);
  };
  return {
    app,
    servePluginStatus(status) {
      pluginStatus = status;
    },
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
