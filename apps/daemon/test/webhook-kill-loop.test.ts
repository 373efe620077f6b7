import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { freePort, postSigned, seededRandom, startSignedReceiver, until } from "@downcity/testkit";
import { afterAll, describe, expect, inject, it } from "vitest";
import { daemonStatus, initProject, startDaemonDetached, stopDaemon } from "../src/index.js";
import { installWebhookAdapter, writeWebhookChannel } from "./install-webhook-adapter.js";
import { createTempWorld } from "./temp-project.js";

// 20 kills by default; `SOAK=1` (pnpm soak) runs 100, or WEBHOOK_KILLS. WEBHOOK_KILL_SEED replays a run.
const kills = Number(process.env.WEBHOOK_KILLS ?? (process.env.SOAK ? 100 : 20));
const seed = Number(process.env.WEBHOOK_KILL_SEED ?? Date.now() % 2 ** 31);
const senders = 4;
const secret = "kill-loop-secret-0123456789abcdef";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Reply {
  idempotencyKey: string;
  chatId: string;
  threadId?: string;
  text: string;
  replyToMessageId?: string;
}

describe("webhook channel: SIGKILL loop under an inbound flood", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it(
    `answers every acknowledged event exactly once across ${kills} kills (seed ${seed})`,
    async () => {
      const random = seededRandom(seed);
      const world = await createTempWorld("dc-webhook-kill-");
      cleanups.push(world.cleanup);
      const rootDir = world.project();
      // One reply in 20 is refused with a 503, so retries are under way when kills land.
      const receiver = await startSignedReceiver<Reply>({ secret, refuse: () => random() < 0.05 });
      cleanups.push(receiver.close);
      // Each event is its own chat, so each gets its own run and reply; the model streams slowly
      // enough that kills land inside runs as well as between them.
      const model = await startOpenAICompatibleServer({
        respond: (call) => {
          const last = call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "";
          const eventId = /event (\S+)/.exec(last)?.[1];
          return eventId ? { text: `ack ${eventId}`, chunkSize: 3, delayMs: 2 } : "ok";
        },
      });
      cleanups.push(() => model.close());
      cleanups.push(() => stopDaemon({ rootDir, graceMs: 1000 }));
      await initProject(rootDir, {
        llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
      });
      const port = await freePort();
      await writeWebhookChannel(rootDir, {
        port,
        url: receiver.url,
        secret,
        access: { dm: "open", groups: "open" },
      });
      await installWebhookAdapter(rootDir);
      const entry = inject("daemonEntry");

      // The flood: each sender posts its events one after another and, like a chat platform,
      // redelivers an event until it gets a 2xx. 202 and 200 (duplicate) both acknowledge it.
      // One event in ten is a group message not addressed to the bot: denied, it must stay unanswered.
      const sent = new Map<string, { chatId: string; threadId?: string }>();
      const silent = new Set<string>();
      const acknowledged = new Map<string, number>();
      const lostAcks = new Set<string>();
      const unexpected: string[] = [];
      let flooding = true;
      const replied = () => new Set(receiver.received.map((reply) => reply.replyToMessageId));
      const unanswered = () => {
        const answered = replied();
        return [...acknowledged.keys()].filter((eventId) => !silent.has(eventId) && !answered.has(eventId));
      };
      const flood = async (lane: number) => {
        for (let index = 0; flooding; index++) {
          const eventId = `s${lane}-${index}`;
          const target = { chatId: `chat-${lane}-${index}`, ...(index % 3 === 0 ? { threadId: "t1" } : {}) };
          const group = index % 10 === 4 || index % 10 === 9;
          if (index % 10 === 9) silent.add(eventId);
          sent.set(eventId, target);
          const body = JSON.stringify({
            eventId,
            ...target,
            chatType: group ? "group" : "direct",
            userId: `user-${lane}`,
            text: `event ${eventId}`,
            ...(group ? { mentioned: !silent.has(eventId) } : {}),
          });
          for (let attempt = 0; ; attempt++) {
            const answer = await postSigned(port, body, secret);
            if (answer?.status === 202 || answer?.status === 200) {
              acknowledged.set(eventId, answer.status);
              if (attempt > 0 && answer.status === 200) lostAcks.add(eventId);
              const expected = silent.has(eventId)
                ? ['{"denied":true}']
                : ['{"accepted":true}', '{"duplicate":true}'];
              if (!expected.includes(answer.text))
                unexpected.push(`${eventId}: ${answer.status} ${answer.text}`);
              break;
            }
            if (answer !== undefined && answer.status !== 503)
              unexpected.push(`${eventId}: HTTP ${answer.status}`);
            // The daemon is down or restarting: back off a little, as a platform would.
            await delay(5 + Math.floor(random() * 20));
          }
          // Flow control: stay at most 40 unanswered events ahead of the agent.
          await until(() => unanswered().length < 40, "the backlog to shrink", { timeoutMs: 30_000 });
        }
      };
      const floods = Array.from({ length: senders }, (_, lane) => flood(lane));

      let killedMidRun = 0;
      const loopStarted = Date.now();
      for (let cycle = 0; cycle < kills; cycle++) {
        const daemon = await startDaemonDetached({ rootDir, env: world.env, entry, timeoutMs: 30_000 });
        // Kill after a random number of fresh acknowledgements, then a random few milliseconds
        // more: sometimes right after an accept, sometimes during runs and sends.
        const before = acknowledged.size;
        const wanted = 1 + Math.floor(random() * 12);
        await until(
          () => acknowledged.size >= before + wanted,
          `${wanted} acknowledgements (cycle ${cycle})`,
          {
            timeoutMs: 20_000,
          },
        );
        const extraMs = Math.floor(random() * 40);
        if (extraMs > 0) await delay(extraMs);
        if (unanswered().length > 0) killedMidRun++;
        process.kill(daemon.pid, "SIGKILL");
        await until(async () => !(await daemonStatus({ rootDir })).running, `daemon ${daemon.pid} gone`);
      }

      const loopMs = Date.now() - loopStarted;
      const drainStarted = Date.now();
      // A last daemon drains everything: stop the flood, wait until every acknowledged event has a reply.
      await startDaemonDetached({ rootDir, env: world.env, entry, timeoutMs: 30_000 });
      flooding = false;
      await Promise.all(floods);
      // On a timeout the assertion below names the events left unanswered.
      await until(() => unanswered().length === 0, "a reply to every acknowledged event", {
        timeoutMs: 30_000,
      }).catch(() => {});
      // A graceful stop finishes in-flight sends; nothing can arrive after it.
      await stopDaemon({ rootDir, graceMs: 5000 });
      const drainMs = Date.now() - drainStarted;

      expect(unanswered(), `seed ${seed}: acknowledged, never answered`).toEqual([]);
      expect(unexpected).toEqual([]);
      expect(receiver.badSignatures).toEqual([]);
      expect(acknowledged.size).toBe(sent.size);
      const byEvent = new Map<string, Reply[]>();
      for (const reply of receiver.received) {
        const eventId = reply.replyToMessageId ?? "(none)";
        byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), reply]);
      }
      // No reply to anything that was not sent.
      expect([...byEvent.keys()].filter((eventId) => !sent.has(eventId))).toEqual([]);
      const problems: string[] = [];
      let sameKeyDuplicates = 0;
      for (const [eventId, target] of sent) {
        const replies = byEvent.get(eventId) ?? [];
        const keys = new Set(replies.map((reply) => reply.idempotencyKey));
        sameKeyDuplicates += replies.length - keys.size;
        if (silent.has(eventId)) {
          if (replies.length > 0) problems.push(`${eventId}: denied, yet answered ${replies.length} times`);
          continue;
        }
        if (keys.size !== 1)
          problems.push(`${eventId}: ${keys.size} distinct replies (${[...keys].join(", ")})`);
        for (const reply of replies) {
          if (reply.text !== `ack ${eventId}`)
            problems.push(`${eventId}: reply text ${JSON.stringify(reply.text)}`);
          if (reply.chatId !== target.chatId || reply.threadId !== target.threadId)
            problems.push(`${eventId}: reply went to ${reply.chatId}/${reply.threadId ?? "-"}`);
        }
      }
      expect(problems, `seed ${seed}`).toEqual([]);
      console.info(
        `webhook kill loop (seed ${seed}): ${kills} kills (${killedMidRun} with runs or sends pending), ${sent.size} events (${silent.size} denied), ` +
          `${lostAcks.size} acknowledgements lost to a kill and redelivered, ${sameKeyDuplicates} same-key resends; ` +
          `kill loop ${loopMs} ms, final drain ${drainMs} ms`,
      );
    },
    // A hang guard only: every step above has its own deadline. A cycle is a daemon cold start plus
    // a few runs, about 2 s on an idle machine and over 7 s at load 25, so the guard stays far off.
    60_000 + kills * 15_000,
  );
});
