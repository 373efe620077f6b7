import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { freePort, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { buttonAdapterSource, startButtonPlatform } from "./button-platform.js";
import { cleanupsAfterAll, isStepCall } from "./cluster-test-helpers.js";
import { startReplyReceiver } from "./webhook-traffic.js";
import { type ClusterWorker, createWorkerCluster } from "./worker-cluster.js";

const secret = "shared-approvals-secret-0123456789";

describe("approvals shared by two workers (two real daemons, one real PostgreSQL)", () => {
  const cleanups = cleanupsAfterAll();

  // Two workers with the button channel `btn` (each on its own port) and approvals asked in the chat.
  const setUp = async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    const platform = await startButtonPlatform();
    cleanups.push(platform.close);
    // The model runs the command a user message names, and reports what the tool answered.
    const retried = new Set<string>();
    const model = await startOpenAICompatibleServer({
      respond: (call) => {
        if (!isStepCall(call)) return JSON.stringify({ entries: [] });
        const last = call.messages.at(-1);
        if (last?.role === "tool") {
          const asked = /^run: (.+)$/m.exec(
            call.messages.findLast((message) => message.role === "user")?.text ?? "",
          )?.[1];
          // A resumed run whose call a dead worker left interrupted makes the same call again, once.
          if (asked && last.text.includes("interrupted") && !retried.has(asked)) {
            retried.add(asked);
            return { toolCalls: [{ toolName: "shell_exec", input: { command: asked } }] };
          }
          return `tool said: ${last.text}`;
        }
        const command = /^run: (.+)$/m.exec(last?.text ?? "")?.[1];
        return command ? { toolCalls: [{ toolName: "shell_exec", input: { command } }] } : "ok";
      },
    });
    cleanups.push(() => model.close());
    const ports = [await freePort(), await freePort()];
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 2,
      modelUrl: model.url,
      hook: { url: receiver.url, secret },
      files: { "button-adapter.mjs": buttonAdapterSource },
      configure: (config, index) => {
        (config.channels as Record<string, unknown>).btn = {
          adapter: "./button-adapter.mjs",
          platform: platform.url,
          port: ports[index],
          access: { dm: "open" },
        };
        config.approvals = { mode: "ask", approvers: ["btn:boss"], timeoutMs: 180_000 };
      },
    });
    cleanups.push(() => cluster.close());
    const [a, b] = cluster.workers as [ClusterWorker, ClusterWorker];
    let events = 0;
    const say = async (worker: ClusterWorker, chatId: string, text: string) => {
      const body = JSON.stringify({ eventId: `e${++events}`, chatId, userId: "boss", text });
      const port = ports[worker.index] as number;
      await until(
        async () =>
          (
            await fetch(`http://127.0.0.1:${port}/events`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body,
            }).catch(() => undefined)
          )?.status === 202,
        `event ${events} accepted by worker ${worker.index}`,
      );
    };
    const requestIn = async (chatId: string) => {
      const sent = await until(
        () =>
          platform.sends.find((send) => send.chatId === chatId && send.text.startsWith("Approval needed")),
        `the approval request in ${chatId}`,
        { timeoutMs: 60_000 },
      );
      return { ...sent, code: /\(([A-Z0-9]{4,6})\)/.exec(sent.text)?.[1] as string };
    };
    const linesOf = (path: string) =>
      existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean) : [];
    const answered = (chatId: string) =>
      until(
        () => platform.sends.find((send) => send.chatId === chatId && send.text.startsWith("tool said:")),
        `the model's answer in ${chatId}`,
        { timeoutMs: 60_000 },
      );
    return { cluster, platform, a, b, ports, say, requestIn, linesOf, answered };
  };

  it("a request made by a run on A is approved on B (/approve and the API): the command runs once on A and the buttons go", async () => {
    const { cluster, platform, a, b, say, requestIn, linesOf, answered } = await setUp();
    try {
      // A alone takes the run; its command waits in A's gate.
      await a.start();
      await say(a, "c1", "run: echo ran >> marker.txt");
      const first = await requestIn("c1");
      expect(first.actions.map((action) => action.id)).toEqual([
        `approval:${first.code}:once`,
        `approval:${first.code}:always`,
        `approval:${first.code}:deny`,
      ]);
      const [asked] = await cluster.query<{ worker: string }>(
        "SELECT request->>'worker' AS worker FROM downcity_approvals WHERE code = $1",
        [first.code],
      );
      expect(asked?.worker).toBe(a.workerId);

      // /approve typed in the chat reaches B (its own port): B settles it, A's run runs it.
      await b.start();
      await say(b, "c1", `/approve ${first.code}`);
      await answered("c1");
      await until(() => linesOf(join(a.rootDir, "marker.txt")).length === 1, "the marker on A");
      const edit = await until(
        () => platform.edits.find((entry) => entry.messageId === first.messageId),
        "the request's buttons removed",
      );
      expect(edit.actions ?? []).toEqual([]);
      expect(edit.text).toContain(`Approved once by btn:boss (${first.code})`);
      const [settled] = await cluster.query<{ decision: string; taken_by: string }>(
        "SELECT decision, taken_by FROM downcity_approvals WHERE code = $1",
        [first.code],
      );
      expect(settled).toEqual({ decision: "once", taken_by: a.workerId });
      // A second answer, on either worker, finds it settled.
      await say(a, "c1", `/approve ${first.code}`);
      await until(
        () =>
          platform.sends.some((send) =>
            send.text.includes(`${first.code} is already settled (once by btn:boss)`),
          ),
        "the already-settled answer",
      );

      // The operator's API (`downcity approvals approve`) on the worker that does not run the request.
      await say(a, "c2", "run: echo again >> marker2.txt");
      const second = await requestIn("c2");
      const [waiting] = await cluster.query<{ worker: string }>(
        "SELECT request->>'worker' AS worker FROM downcity_approvals WHERE code = $1",
        [second.code],
      );
      const runner = cluster.workers.find((worker) => worker.workerId === waiting?.worker) as ClusterWorker;
      const other = cluster.workers.find((worker) => worker !== runner) as ClusterWorker;
      const listed = await (await other.client()).servicesCommand({ service: "approvals", action: "list" });
      expect(
        (listed.result as { pending: Array<{ code: string }> }).pending.map((entry) => entry.code),
      ).toEqual([second.code]);
      const approved = await (await other.client()).servicesCommand({
        service: "approvals",
        action: "approve",
        payload: { code: second.code },
      });
      expect(approved.result).toMatchObject({ code: second.code, decision: "once" });
      await answered("c2");
      await until(() => linesOf(join(runner.rootDir, "marker2.txt")).length === 1, "marker2 on the runner");
      await until(
        () => platform.edits.some((entry) => entry.messageId === second.messageId),
        "the second request's buttons removed",
      );
      await expect(
        (await runner.client()).servicesCommand({
          service: "approvals",
          action: "deny",
          payload: { code: second.code },
        }),
      ).rejects.toThrow(/already settled/);

      // Exactly once, where the run waited.
      expect(linesOf(join(a.rootDir, "marker.txt"))).toEqual(["ran"]);
      expect(existsSync(join(b.rootDir, "marker.txt"))).toBe(false);
      expect(linesOf(join(runner.rootDir, "marker2.txt"))).toEqual(["again"]);
      expect(existsSync(join(other.rootDir, "marker2.txt"))).toBe(false);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 240_000);

  it("the worker that asked dies: approved on B, the command runs once, and the resumed run does not ask again", async () => {
    const { cluster, a, b, say, requestIn, linesOf, answered } = await setUp();
    try {
      await a.start();
      await say(a, "c3", "run: echo once >> marker3.txt");
      const request = await requestIn("c3");
      await b.start();
      await a.kill();
      // B answers; whether B's approval finds A's run gone (and runs it on its own) or the run
      // resumed on B first (and waits there again), the command runs once, on B.
      const approved = await (await b.client()).servicesCommand({
        service: "approvals",
        action: "approve",
        payload: { code: request.code },
      });
      expect(approved.result).toMatchObject({ code: request.code, decision: "once" });
      await until(() => linesOf(join(b.rootDir, "marker3.txt")).length === 1, "marker3 on B", {
        timeoutMs: 90_000,
      });
      await answered("c3");
      const requests = await cluster.query<{ code: string }>(
        "SELECT code FROM downcity_approvals WHERE context_id = $1",
        ["btn:c3"],
      );
      expect(requests.map((row) => row.code)).toEqual([request.code]);
      expect(linesOf(join(b.rootDir, "marker3.txt"))).toEqual(["once"]);
      expect(existsSync(join(a.rootDir, "marker3.txt"))).toBe(false);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 240_000);
});
