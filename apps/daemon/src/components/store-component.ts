import { daemonComponent } from "../host/daemon-parts.js";
import { openConfiguredStore } from "../store/open-configured-store.js";

/** The shared store of downcity.json (several workers serve one agent), opened before anything writes history and closed last. */
export const storeComponent = daemonComponent({
  name: "store",
  dependsOn: ["context"],
  async setup({ context }) {
    if (!context.config.store) return { value: undefined };
    const store = await openConfiguredStore(context.rootDir, context.config.store);
    context.logger.info({ store: store.kind }, "history, inbox and outbox live in the shared store");
    return { value: store, close: () => store.close() };
  },
});
