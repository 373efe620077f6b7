import { daemonComponent } from "../host/daemon-parts.js";
import { trackBackgroundJobs } from "../store/background-jobs.js";
import { answerForeignSessions } from "../store/foreign-sessions.js";

/**
 * With a shared store: announces this worker's background shell jobs (another worker can report them
 * lost), pins their contexts to this worker while they live, and answers shell calls on another
 * worker's session with its owner.
 */
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
    shell.toolWrappers.push((tools, run) =>
      answerForeignSessions(tools, {
        workerId: channels.workerId,
        meta: () => runtime.history(run.contextId).meta(),
        leases: store.leases,
      }),
    );
    return { value: undefined, close: () => jobs.stop() };
  },
});
