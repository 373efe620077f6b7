import { daemonComponent } from "../host/daemon-parts.js";
import { trackBackgroundJobs } from "../store/background-jobs.js";

/** With a shared store: announces this worker's background shell jobs, so another worker can report them lost. */
export const jobsComponent = daemonComponent({
  name: "jobs",
  dependsOn: ["context", "runtime", "runs", "shell", "store", "channels"],
  setup({ context, runtime: { runtime }, shell, store, channels }) {
    if (!store || !context.config.store) return { value: undefined };
    const jobs = trackBackgroundJobs({
      engine: shell.engine,
      runtime,
      submit: (input) => channels.submit(input),
      store,
      workerId: channels.workerId,
      leaseMs: context.config.store.leaseMs,
      logger: context.logger,
    });
    return { value: undefined, close: () => jobs.stop() };
  },
});
