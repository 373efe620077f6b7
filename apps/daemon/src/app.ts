import {
  type AgentRuntime,
  type ChannelHost,
  type Logger,
  type PluginStatus,
  type RunJournal,
  type ServiceRegistry,
  silentLogger,
  type UsageStore,
} from "@downcity/core";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler } from "fastify-type-provider-zod";
import { registerErrorHandler } from "./plugins/error-handler.js";
import { registerRequestGuard } from "./plugins/request-guard.js";
import { zodValidatorCompiler } from "./plugins/zod-validator.js";
import { cancelRoute } from "./routes/cancel-route.js";
import { chatRoutes, createEventStreams } from "./routes/chat-routes.js";
import { contextRoutes } from "./routes/context-routes.js";
import { healthRoute } from "./routes/health-route.js";
import { logRoutes } from "./routes/log-routes.js";
import { pluginRoutes } from "./routes/plugin-routes.js";
import { runRoutes } from "./routes/run-routes.js";
import { serviceRoutes } from "./routes/service-routes.js";
import { usageRoutes } from "./routes/usage-routes.js";
import { capabilityAccess } from "./security/capability-routes.js";
import {
  type CapabilityScopeOptions,
  registerCapabilityScope,
} from "./security/register-capability-scope.js";
import { daemonVersion } from "./version.js";

/** Options of `buildDaemonApp`. */
export interface DaemonAppOptions {
  runtime: AgentRuntime;
  registry: ServiceRegistry;
  /** The bearer token every route but `/api/health` requires. */
  token: string;
  logger?: Logger;
  version?: string;
  name?: string;
  /** Body limit in bytes [1 MiB]. */
  bodyLimit?: number;
  /** The channel host: chat messages go through its durable inbox (without one, straight to the runtime). */
  channels?: ChannelHost;
  /** The plug-ins and their states, for `GET /api/plugins` [none]. */
  plugins?: () => PluginStatus[];
  /** Shell children's capability tokens and how to check their sessions [none: only the user token passes]. */
  capabilities?: CapabilityScopeOptions;
  /** The run journal the runtime writes, for `GET /api/runs` [none: the runs routes are not served]. */
  journal?: RunJournal;
  /** Where model calls are recorded, for `GET /api/usage` [none: the usage route is not served]. */
  usage?: UsageStore;
  /** SSE keep-alive comment interval [15 s]. */
  keepAliveMs?: number;
}

/** Builds the daemon's HTTP app without listening (tests use `app.inject()`). */
export function buildDaemonApp(options: DaemonAppOptions): FastifyInstance {
  const logger = options.logger ?? silentLogger;
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    forceCloseConnections: "idle",
    return503OnClosing: true,
  });
  // JSON only: any other content type is a 415.
  app.removeContentTypeParser("text/plain");
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app, logger);
  registerRequestGuard(app, {
    token: options.token,
    publicPaths: ["/api/health"],
    ...(options.capabilities ? { capability: capabilityAccess(options.capabilities.tokens) } : {}),
  });
  if (options.capabilities) registerCapabilityScope(app, options.capabilities);
  const streams = createEventStreams();
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
    streams.closeAll();
  });
  // Idle keep-alive sockets are closed at close(); busy ones are told to close after their reply,
  // so a client holding a connection open cannot delay shutdown until the keep-alive timeout.
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });
  app.addHook("onResponse", async (request, reply) => {
    logger.debug(
      {
        method: request.method,
        route: request.routeOptions.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      "http request",
    );
  });
  app.register(healthRoute, {
    version: options.version ?? daemonVersion(),
    ...(options.name ? { name: options.name } : {}),
  });
  app.register(cancelRoute, {
    runtime: options.runtime,
    ...(options.channels ? { channels: options.channels } : {}),
  });
  app.register(chatRoutes, {
    runtime: options.runtime,
    ...(options.channels ? { channels: options.channels } : {}),
    streams,
    ...(options.keepAliveMs ? { keepAliveMs: options.keepAliveMs } : {}),
  });
  app.register(serviceRoutes, { registry: options.registry });
  app.register(pluginRoutes, { plugins: options.plugins ?? (() => []) });
  app.register(contextRoutes, { runtime: options.runtime });
  app.register(logRoutes, { runtime: options.runtime });
  if (options.journal) {
    const channels = options.channels;
    app.register(runRoutes, {
      journal: options.journal,
      ...(channels ? { replyDelivery: (key: string) => channels.replyDelivery(key) } : {}),
    });
  }
  if (options.usage) app.register(usageRoutes, { usage: options.usage });
  return app;
}
