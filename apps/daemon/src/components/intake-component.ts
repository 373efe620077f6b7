import type { AddressInfo } from "node:net";
import { daemonComponent } from "../host/daemon-parts.js";
import { wireShellExitFollowUp } from "../runtime/shell-exit-follow-up.js";

/**
 * Work starts coming in, once everything is set up: the HTTP app listens, shell sessions of a
 * previous run are recovered, services and channels start. Set up last, so it closes first: intake
 * stops before anything else shuts down.
 */
export const intakeComponent = daemonComponent({
  name: "intake",
  dependsOn: ["context", "runtime", "shell", "services", "channels", "plugins", "http"],
  async setup({ context, shell, services, channels, http }) {
    const { logger } = context;
    await http.app.listen({ host: context.listen.host, port: context.listen.port });
    const { port } = http.app.server.address() as AddressInfo;
    shell.callback.port = port;
    const unwire = wireShellExitFollowUp({
      engine: shell.engine,
      submit: (input) => channels.submit(input),
      logger,
    });
    const close = () => {
      http.stopIntake();
      unwire();
    };
    try {
      const recovered = await shell.engine.recover();
      if (recovered.lost.length + recovered.replayed.length > 0)
        logger.info(recovered, "shell sessions recovered");
      await services.startAll();
      await channels.start();
    } catch (error) {
      close();
      throw error;
    }
    // Adapters' own services (e.g. `downcity tg set-webhook <url>`), named after their instance.
    for (const service of channels.adapterServices()) {
      if (services.get(service.name)) {
        logger.warn(
          { service: service.name },
          "a channel's service name is taken; rename the channel instance",
        );
        continue;
      }
      services.register(service);
    }
    return { value: { host: context.listen.host, port }, close };
  },
});
