import type { ServiceRegistry } from "@downcity/core";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { contextIdField } from "../chat/context-id-field.js";

const serviceField = z.string().min(1).max(100).describe("Service name, see /api/services/list");

/** Body of `POST /api/services/control`. */
export const serviceControlBody = z.strictObject({
  service: serviceField,
  action: z.enum(["start", "stop", "restart", "status"]),
});

/** Body of `POST /api/services/command`. */
export const serviceCommandBody = z.strictObject({
  service: serviceField,
  action: z.string().min(1).max(100),
  payload: z.unknown().optional(),
  contextId: contextIdField.optional(),
});

/** `GET /api/services/list`, `POST /api/services/control` and `POST /api/services/command`. */
export async function serviceRoutes(
  app: FastifyInstance,
  options: { registry: ServiceRegistry },
): Promise<void> {
  const { registry } = options;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get("/api/services/list", async () => ({ services: registry.list() }));
  typed.post("/api/services/control", { schema: { body: serviceControlBody } }, async (request) =>
    registry.control(request.body.service, request.body.action),
  );
  typed.post("/api/services/command", { schema: { body: serviceCommandBody } }, async (request) => {
    const { service, action, payload, contextId } = request.body;
    const result = await registry.invoke(service, action, payload ?? {}, contextId ? { contextId } : {});
    return { service, action, result: result ?? null };
  });
}
