import { createServiceRegistry } from "@downcity/core";
import { createChannelServices } from "@downcity/core/internal";
import { createApprovalsService } from "../approvals/approvals-service.js";
import { daemonComponent } from "../host/daemon-parts.js";
import { createChatService } from "../services/chat-service.js";
import { createShellService } from "../services/shell-service.js";

/** The service registry with the daemon's own services (chat, shell, channels); plug-ins and adapters add theirs later. */
export const servicesComponent = daemonComponent({
  name: "services",
  dependsOn: ["context", "runtime", "shell", "channels", "approvals"],
  setup({ context, runtime: { runtime }, shell, channels, approvals }) {
    const registry = createServiceRegistry({ logger: context.logger });
    registry.register(createChatService(runtime, channels));
    registry.register(createShellService(shell.engine, { foreign: shell.foreign }));
    registry.register(createApprovalsService(approvals));
    for (const service of createChannelServices(channels)) registry.register(service);
    return { value: registry, close: () => registry.stopAll() };
  },
});
