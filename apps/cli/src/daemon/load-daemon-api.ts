/**
 * The slice of `@downcity/daemon` the CLI drives. It is loaded lazily (fastify, the AI SDK and the
 * providers cost hundreds of milliseconds to import) so fast commands such as `status` stay fast;
 * the type-only imports below cost nothing at run time.
 */
import type * as DaemonModule from "@downcity/daemon";

export type {
  ChatReply,
  DaemonClient,
  DaemonEvent as ChatEvent,
  DaemonStatus,
  DaemonTarget,
} from "@downcity/daemon";

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

/** Imports `@downcity/daemon` on first use; a function it does not export fails with a message naming it. */
export async function loadDaemonApi(): Promise<DaemonApi> {
  const module = (await import("@downcity/daemon")) as DaemonApi;
  return new Proxy(module, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (value === undefined && typeof property === "string" && property !== "then") {
        throw new Error(
          `@downcity/daemon does not export ${property}(); rebuild it (npx tsup in apps/daemon) or update the CLI.`,
        );
      }
      return value;
    },
  });
}
