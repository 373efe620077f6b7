/**
 * The server side of `@downcity/daemon` (start, stop, init, the console) is loaded lazily: fastify,
 * the AI SDK and the providers cost hundreds of milliseconds to import. Commands that only talk to
 * a running daemon use `@downcity/daemon/client`, which loads none of that.
 */
import type * as DaemonModule from "@downcity/daemon";

export type {
  ChatReply,
  DaemonClient,
  DaemonEvent as ChatEvent,
  DaemonStatus,
  DaemonTarget,
} from "@downcity/daemon/client";

/** A service as `GET /api/services/list` reports it, each action with its JSON Schema. */
export interface ServiceListing {
  name: string;
  description?: string;
  state?: string;
  error?: string;
  actions: Array<{ name: string; description?: string; inputSchema: unknown }>;
}

/** The library functions of `@downcity/daemon` the CLI calls. */
export type DaemonApi = typeof DaemonModule;

/** Imports the server side of `@downcity/daemon` on first use. */
export function loadDaemonApi(): Promise<DaemonApi> {
  return import("@downcity/daemon");
}
