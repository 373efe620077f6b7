import { daemonComponent } from "../host/daemon-parts.js";

/**
 * The runs of the runtime, as one lifecycle step: closing drains them (running runs get the grace
 * period, then are aborted and recorded). It depends on everything a run uses, so a run finishing
 * during shutdown still records its reply through the channels, reaches its shells and credentials,
 * counts its usage and answers the HTTP request that waits on it; plug-ins close before it.
 */
export const runsComponent = daemonComponent({
  name: "runs",
  dependsOn: ["runtime", "usage", "shell", "credentials", "channels", "http"],
  setup({ runtime: { runtime } }) {
    return { value: undefined, close: () => runtime.close() };
  },
});
