import type { FastifyInstance } from "fastify";

/** `GET /api/health`: unauthenticated liveness with name, version and pid. */
export async function healthRoute(
  app: FastifyInstance,
  options: { version: string; name?: string },
): Promise<void> {
  const startedAt = Date.now();
  app.get("/api/health", async () => ({
    ok: true,
    ...(options.name ? { name: options.name } : {}),
    version: options.version,
    pid: process.pid,
    uptimeMs: Date.now() - startedAt,
  }));
}
