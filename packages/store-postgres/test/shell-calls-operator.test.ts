import type { DowncityError } from "@downcity/core";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll } from "./cluster-test-helpers.js";
import { startReplyReceiver } from "./webhook-traffic.js";
import { type ClusterWorker, createWorkerCluster } from "./worker-cluster.js";

const secret = "shell-calls-operator-secret-01234567";
const marker = "operator-marker-5c1e";

type Shell = Record<string, unknown> & { output?: string; status?: string; next_cursor?: number };

// What `downcity shell <action> --json` prints: the daemon's answer to POST /api/services/command.
const shellAction = async (worker: ClusterWorker, action: string, payload: Record<string, unknown>) =>
  (await (await worker.client()).servicesCommand({ service: "shell", action, payload })).result as Shell;

const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => error as DowncityError,
  );

describe("the operator's shell commands reach another worker's session (two real daemons on PostgreSQL)", () => {
  const cleanups = cleanupsAfterAll();

  it("list, status, read, write, wait and close through B answer with A's session; a silent owner and a dead one are named", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    const model = await startOpenAICompatibleServer({ respond: async () => ({ text: "ok" }) });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 2,
      modelUrl: model.url,
      hook: { url: receiver.url, secret },
      // A's lease outlives the moment it is stopped (SIGSTOP) by seconds: B still finds it alive.
      leaseMs: 10_000,
    });
    cleanups.push(() => cluster.close());
    const [a, b] = cluster.workers as [ClusterWorker, ClusterWorker];
    try {
      await cluster.startAll();
      // One session of a chat (as the agent starts them) and one the operator started without a chat.
      const chat = await (await a.client()).servicesCommand({
        service: "shell",
        action: "start",
        payload: { command: `echo ${marker}; exec sleep 600` },
        contextId: "hook:dev",
      });
      const chatSession = (chat.result as { shell_id: string }).shell_id;
      const echo = (await shellAction(a, "start", { command: "exec cat" })).shell_id as string;
      const local = await until(async () => {
        const read = await shellAction(a, "read", { shell_id: chatSession, cursor: 0 });
        return read.output?.includes(marker) ? read : undefined;
      }, "the session's output on A");

      // B's listing holds A's sessions as A lists them, each with A named.
      const listed = await until(async () => {
        const entries = (await shellAction(b, "list", { status: "live" })) as unknown as Shell[];
        const ids = entries.filter((entry) => entry.worker === a.workerId).map((entry) => entry.shell_id);
        return ids.includes(chatSession) && ids.includes(echo) ? entries : undefined;
      }, "A's sessions in B's listing");
      expect(listed).toContainEqual(
        expect.objectContaining({
          shell_id: chatSession,
          worker: a.workerId,
          status: "running",
          context_id: "hook:dev",
        }),
      );
      expect(listed.find((entry) => entry.shell_id === echo)?.pid).toEqual(expect.any(Number));

      const status = await shellAction(b, "status", { shell_id: chatSession });
      expect(status).toMatchObject({ shell_id: chatSession, status: "running", context_id: "hook:dev" });
      const read = await shellAction(b, "read", { shell_id: chatSession, cursor: 0 });
      expect(read.output).toContain(marker);
      // The same answer (and so the same --json) as on the session's own worker.
      expect(Object.keys(read).sort()).toEqual(Object.keys(local).sort());

      const written = await shellAction(b, "write", { shell_id: echo, input: "pong-from-b\n", yield_ms: 0 });
      expect(written.bytes_written).toBe("pong-from-b\n".length);
      const waited = await shellAction(b, "wait", {
        shell_id: echo,
        pattern: "pong-from-b",
        cursor: 0,
        timeout_ms: 10_000,
      });
      expect(waited.output).toContain("pong-from-b");

      const closed = await shellAction(b, "close", { shell_id: chatSession });
      expect(closed.status).toMatch(/^(killed|exited)$/);
      expect((await shellAction(a, "status", { shell_id: chatSession })).status).toBe(closed.status);
      const unknown = await failureOf(shellAction(b, "status", { shell_id: "sh_nobody00000" }));
      expect(unknown?.code).toBe("NOT_FOUND");
      const calls = await cluster.query<{ tool: string; owner: string; requested_by: string }>(
        "SELECT tool, owner, requested_by FROM downcity_shell_calls WHERE answered_at IS NOT NULL",
      );
      expect(new Set(calls.map((call) => call.tool))).toEqual(
        new Set(["shell_list", "shell_status", "shell_read", "shell_write", "shell_wait", "shell_close"]),
      );
      expect(new Set(calls.map((call) => `${call.requested_by}->${call.owner}`))).toEqual(
        new Set([`${b.workerId}->${a.workerId}`]),
      );

      // A stops answering (SIGSTOP) while its lease still holds: B says so and names A.
      process.kill(a.pid as number, "SIGSTOP");
      let silent: DowncityError | undefined;
      try {
        silent = await failureOf(shellAction(b, "status", { shell_id: echo }));
      } finally {
        process.kill(a.pid as number, "SIGCONT");
      }
      expect(silent?.code).toBe("SERVICE_ERROR");
      expect(silent?.message).toContain(`did not answer in time`);
      expect(silent?.message).toContain(`worker ${a.workerId}`);

      // A dies: once its lease lapses, its session is reported lost, with A named.
      await a.kill();
      await until(
        async () =>
          (
            await cluster.query(
              "SELECT 1 FROM downcity_lease WHERE context_id = $1 AND until > clock_timestamp()",
              [`worker:${a.workerId}`],
            )
          ).length === 0,
        "A's liveness lease to lapse",
        { timeoutMs: 30_000 },
      );
      const lost = await until(async () => {
        const failure = await failureOf(shellAction(b, "read", { shell_id: echo }));
        return failure?.message.includes("lost") ? failure : undefined;
      }, "B to report A's session lost");
      expect(lost.code).toBe("NOT_FOUND");
      expect(lost.message).toContain(`worker ${a.workerId}`);
      expect(lost.message).toContain("`exec cat`");
      // And B lists it lost, naming A.
      const afterDeath = (await shellAction(b, "list", { status: "exited" })) as unknown as Shell[];
      expect(afterDeath).toContainEqual(
        expect.objectContaining({ shell_id: echo, worker: a.workerId, status: "lost" }),
      );
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 240_000);
});
