import { buildDaemonApp } from "../app.js";
import { createDaemonHttp } from "../host/daemon-http.js";
import { daemonComponent } from "../host/daemon-parts.js";
import { ensureToken } from "../token/ensure-token.js";
import { daemonVersion } from "../version.js";

/**
 * The HTTP app (not yet listening: `intake` listens once everything is set up). It closes after the
 * runs have drained, so a chat request waiting on a run still gets that run's reply.
 */
export const httpComponent = daemonComponent({
  name: "http",
  dependsOn: ["context", "runtime", "services", "credentials", "channels"],
  async setup({ context, runtime: { runtime, journal, usageLog }, services, credentials, channels }) {
    const token = await ensureToken(context.env);
    const http = createDaemonHttp((pluginStatus) =>
      buildDaemonApp({
        runtime,
        journal,
        usage: usageLog,
        registry: services,
        token,
        capabilities: credentials.scope,
        logger: context.logger,
        version: daemonVersion(),
        channels,
        plugins: pluginStatus,
        ...(context.config.name ? { name: context.config.name } : {}),
      }),
    );
    return { value: http, close: () => http.closed() };
  },
});
