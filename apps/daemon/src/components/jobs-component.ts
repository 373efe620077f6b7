import { daemonComponent } from "../host/daemon-parts.js";
import { trackBackgroundJobs } from "../store/background-jobs.js";
import { listForeignSessions } from "../store/foreign-session-list.js";
import { answerForeignSessions, routeForeignCall } from "../store/foreign-sessions.js";
import { serveShellCalls } from "../store/serve-shell-calls.js";

/**
 * With a shared store: announces this worker's background shell jobs (another worker can report them
 * lost), pins their contexts to this worker from the moment a session starts while they live, makes
 * the shell calls other workers route to its sessions, and routes shell calls on another worker's
 * session to that worker (or answers with the owner and why); the shell service's `list` lists
 * every worker's sessions.
 */
export const jobsComponent = daemonComponent({
  name: "jobs",
  dependsOn: ["context", "runtime", "runs", "shell", "store", "channels"],
  setup({ context, runtime: { runtime }, shell, store, channels }) {
    if (!store || !context.config.store) return { value: undefined };
    const { workerId } = channels;
    const jobs = trackBackgroundJobs({
      engine: shell.engine,
      runtime,
      submit: (input) => channels.submit(input),
      store,
      workerId,
      leaseMs: context.config.store.leaseMs,
      logger: context.logger,
    });
    // A live session pins its chat before the start returns, so no other worker claims the chat
    // between the start and the next beat.
    shell.afterStart.push(async (started) => {
      if (started.status === "running" || started.status === "starting") await jobs.refresh();
    });
    const served = store.shellCalls
      ? serveShellCalls({ calls: store.shellCalls, engine: shell.engine, workerId, logger: context.logger })
      : undefined;
    const routing = {
      workerId,
      leases: store.leases,
      ...(store.shellCalls ? { calls: store.shellCalls } : {}),
    };
    shell.toolWrappers.push((tools, run) =>
      answerForeignSessions(tools, { ...routing, meta: () => runtime.history(run.contextId).meta() }),
    );
    // The shell service (the operator's `downcity shell read`, HTTP) routes the same way.
    shell.foreign.route = (tool, input, call) =>
      routeForeignCall(tool, input, {
        ...routing,
        meta: async () => (call.contextId ? runtime.history(call.contextId).meta() : {}),
      });
    const calls = store.shellCalls;
    if (calls)
      shell.foreign.list = {
        workerId,
        others: (input) => listForeignSessions(input, { workerId, calls, leases: store.leases }),
      };
    return {
      value: undefined,
      close: async () => {
        shell.foreign.route = undefined;
        shell.foreign.list = undefined;
        await served?.stop();
        await jobs.stop();
      },
    };
  },
});
