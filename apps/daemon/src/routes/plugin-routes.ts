import type { PluginStatus } from "@downcity/core";
import type { FastifyInstance } from "fastify";

/** `GET /api/plugins`: every plug-in with its source, version and state (`loaded`, `disabled`, `failed` with the error). */
export async function pluginRoutes(
  app: FastifyInstance,
  options: { plugins: () => PluginStatus[] },
): Promise<void> {
  app.get("/api/plugins", async () => ({ plugins: options.plugins() }));
}
