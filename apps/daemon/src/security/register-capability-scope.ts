import { DowncityError } from "@downcity/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { capabilityServices } from "./capability-routes.js";
import { type CapabilityGrant, type CapabilityTokens, capabilityTokenPrefix } from "./capability-tokens.js";

/** Options of `registerCapabilityScope`. */
export interface CapabilityScopeOptions {
  tokens: CapabilityTokens;
  /** The context of a shell session, null when it has none; throws or returns undefined when unknown. */
  sessionContext(shellId: string): Promise<string | null | undefined>;
  /** Whether a shell session still runs; a token dies with its session. */
  sessionLive(shellId: string): Promise<boolean>;
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header?.startsWith("Bearer ")) return undefined;
  const token = header.slice(7).trim();
  return token.startsWith(capabilityTokenPrefix) ? token : undefined;
}

function refuse(message: string, field: string): DowncityError {
  return new DowncityError("FORBIDDEN", message, { field });
}

function sameContext(given: unknown, grant: CapabilityGrant, field: string): void {
  if (given !== undefined && given !== grant.contextId)
    throw refuse(
      `A shell's token acts only for its own conversation ${grant.contextId}; drop ${field} or set it to that`,
      field,
    );
}

const shellIdActions = new Set(["status", "read", "write", "wait", "close"]);

/**
 * Keeps a shell child's capability token inside its grant: the token must belong to a live
 * session (else 401), chat and service calls are forced to the grant's context (another
 * context is a 403), only context-scoped services may be invoked, and shell sessions of other
 * contexts are out of reach.
 */
export function registerCapabilityScope(app: FastifyInstance, options: CapabilityScopeOptions): void {
  const grantOf = (request: FastifyRequest): CapabilityGrant | undefined => {
    const token = bearer(request);
    return token ? options.tokens.lookup(token) : undefined;
  };
  app.addHook("onRequest", async (request) => {
    const token = bearer(request);
    const grant = token ? options.tokens.lookup(token) : undefined;
    if (!token || !grant) return;
    if (!(await options.sessionLive(grant.shellId).catch(() => false))) {
      options.tokens.revoke(token);
      throw new DowncityError(
        "UNAUTHORIZED",
        `This shell token was revoked: its session ${grant.shellId} has ended`,
        { field: "authorization" },
      );
    }
  });
  app.addHook("preHandler", async (request) => {
    const grant = grantOf(request);
    if (!grant) return;
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/api/chat/history" || path === "/api/chat/events") {
      const query = request.query as Record<string, unknown>;
      sameContext(query.contextId, grant, "contextId");
      query.contextId = grant.contextId;
      return;
    }
    if (path === "/api/chat/send") {
      const body = request.body as Record<string, unknown>;
      sameContext(body.contextId, grant, "contextId");
      body.contextId = grant.contextId;
      return;
    }
    if (path === "/api/services/command") {
      const body = request.body as { service: string; action: string; payload?: unknown; contextId?: string };
      if (!capabilityServices.has(body.service))
        throw refuse(
          `A shell's token may not call the ${body.service} service; it may use ${[...capabilityServices].join(", ")}`,
          "service",
        );
      sameContext(body.contextId, grant, "contextId");
      body.contextId = grant.contextId;
      const payload = (
        typeof body.payload === "object" && body.payload !== null ? body.payload : {}
      ) as Record<string, unknown>;
      sameContext(payload.contextId, grant, "payload.contextId");
      sameContext(payload.context_id, grant, "payload.context_id");
      if (body.service === "shell") {
        if (body.action === "list") payload.context_id = grant.contextId;
        if (shellIdActions.has(body.action) && typeof payload.shell_id === "string") {
          const owner = await options.sessionContext(payload.shell_id).catch(() => undefined);
          if (owner !== grant.contextId)
            throw refuse(
              `Shell session ${payload.shell_id} does not belong to ${grant.contextId}`,
              "payload.shell_id",
            );
        }
      }
      body.payload = payload;
    }
  });
}
