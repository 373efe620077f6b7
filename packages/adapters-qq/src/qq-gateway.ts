import type { ChannelContext } from "@downcity/core";
import WebSocket from "ws";
import { qqRequest } from "./qq-http.js";
import type { QqTokenSource } from "./qq-token-source.js";
import { type GatewaySession, readSession, writeSession } from "./session-file.js";

/** A dispatch (op 0) the gateway hands over, in seq order, one at a time. */
export interface QqDispatch {
  type: string;
  id: string | undefined;
  seq: number;
  data: unknown;
}

/** What the gateway client needs. */
export interface QqGatewayOptions {
  apiBase: string;
  tokens: QqTokenSource;
  intents: number;
  reconnectDelayMs: number;
  context: ChannelContext;
  /** Takes one message dispatch into the inbox; a throw means it was not durably accepted. */
  onDispatch(dispatch: QqDispatch): Promise<void>;
}

/** A running gateway client. */
export interface QqGateway {
  stop(): Promise<void>;
}

const fatalCloses: Record<number, string> = {
  4914: "the bot is offline or limited to its sandbox (close 4914): publish it or add the chat to the sandbox",
  4915: "the bot is banned (close 4915)",
};
const reidentifyCloses = new Set([4006, 4007, 4009]);
// Our own close code: not one the platform treats as "forget the session", so the next connection can resume.
const resumableClose = 4000;

/**
 * The QQ bot gateway client: discovery through `GET /gateway`, Hello -> Identify (or Resume) -> Dispatch, heartbeats
 * with a zombie check, Reconnect (op 7), Invalid Session (op 9), and close codes (re-identify on 4006/4007/4009, stop
 * with a clear error on 4914/4915 and on a second 4004 in a row). Dispatches are accepted one at a time in seq order;
 * the resume seq (also saved in `stateDir`, for a restart) only moves past an event once it was durably accepted, so a
 * resume never skips one. A failed accept closes the connection and resumes from below it: the platform replays it.
 */
export async function startQqGateway(options: QqGatewayOptions): Promise<QqGateway> {
  const { context } = options;
  let session: GatewaySession | undefined = await readSession(context);
  let socket: WebSocket | undefined;
  let generation = 0;
  let stopped = false;
  let attempts = 0;
  let authFailures = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();
  let firstOutcome: (() => void) | undefined;
  // Session writes go one after another (never two renames racing), and stop waits for the last one.
  let writes: Promise<void> = Promise.resolve();
  const saveSession = () => {
    const snapshot = session;
    writes = writes.then(() => writeSession(context, snapshot)).catch(() => {});
    return writes;
  };

  const watermark = () => session?.seq ?? null;
  const clearTimers = () => {
    if (heartbeatTimer) clearInterval(heartbeatTimer);
    heartbeatTimer = undefined;
  };
  const fail = (message: string) => {
    stopped = true;
    clearTimers();
    context.setState("failed", message);
    context.logger.error({ channel: context.channel }, `QQ gateway stopped: ${message}`);
    firstOutcome?.();
  };
  const scheduleReconnect = (delayMs?: number) => {
    if (stopped) return;
    const delay = delayMs ?? Math.min(60_000, options.reconnectDelayMs * 2 ** attempts);
    attempts += 1;
    reconnectTimer = setTimeout(() => void connect(), delay);
  };
  const send = (target: WebSocket, payload: unknown) => {
    if (target.readyState === WebSocket.OPEN) target.send(JSON.stringify(payload));
  };

  const connect = async () => {
    reconnectTimer = undefined;
    if (stopped) return;
    const current = ++generation;
    let url: string;
    let token: string;
    try {
      token = await options.tokens.token();
      ({ url } = await qqRequest<{ url: string }>(options, "GET", "/gateway"));
    } catch (error) {
      context.setState("retrying", `QQ gateway discovery failed: ${(error as Error).message}`);
      firstOutcome?.();
      scheduleReconnect();
      return;
    }
    if (stopped || current !== generation) return;
    const ws = new WebSocket(url, { handshakeTimeout: 15_000 });
    socket = ws;
    let heartbeatAcked = true;
    let failedAccept = false;
    let terminateTimer: NodeJS.Timeout | undefined;

    const dropAndResume = (reason: string) => {
      if (terminateTimer) return;
      context.logger.warn({ channel: context.channel }, `QQ gateway: ${reason}; reconnecting`);
      clearTimers();
      ws.close(resumableClose);
      // A socket that never answers the close (a half-open one) is cut after a moment.
      terminateTimer = setTimeout(() => ws.terminate(), 2000);
    };

    ws.on("message", (raw: Buffer) => {
      let payload: { op?: number; d?: unknown; s?: number; t?: string; id?: string };
      try {
        payload = JSON.parse(raw.toString("utf8"));
      } catch {
        return;
      }
      switch (payload.op) {
        case 10: {
          const interval = Number(
            (payload.d as { heartbeat_interval?: unknown } | undefined)?.heartbeat_interval,
          );
          clearTimers();
          heartbeatTimer = setInterval(
            () => {
              if (!heartbeatAcked) return dropAndResume("no heartbeat ack (a half-open connection)");
              heartbeatAcked = false;
              send(ws, { op: 1, d: watermark() });
            },
            Number.isFinite(interval) && interval > 0 ? interval : 30_000,
          );
          if (session)
            send(ws, {
              op: 6,
              d: { token: `QQBot ${token}`, session_id: session.sessionId, seq: session.seq },
            });
          else
            send(ws, {
              op: 2,
              d: {
                token: `QQBot ${token}`,
                intents: options.intents,
                shard: [0, 1],
                properties: { $os: process.platform, $browser: "downcity", $device: "downcity" },
              },
            });
          return;
        }
        case 11:
          heartbeatAcked = true;
          return;
        case 7:
          return dropAndResume("the platform asked for a reconnect (op 7)");
        case 9: {
          const resumable = payload.d === true;
          if (!resumable) {
            session = undefined;
            void saveSession();
          }
          return dropAndResume(`invalid session (op 9${resumable ? ", resumable" : ", identifying anew"})`);
        }
        case 0:
          break;
        default:
          return;
      }
      const seq = typeof payload.s === "number" ? payload.s : undefined;
      const type = payload.t ?? "";
      queue = queue.then(async () => {
        if (failedAccept || current !== generation || stopped) return;
        if (type === "READY") {
          const sessionId = (payload.d as { session_id?: unknown } | undefined)?.session_id;
          attempts = 0;
          authFailures = 0;
          context.setState("connected");
          firstOutcome?.();
          if (typeof sessionId === "string") {
            session = { sessionId, seq: seq ?? 0 };
            await saveSession();
          }
        } else if (type === "RESUMED") {
          attempts = 0;
          authFailures = 0;
          context.setState("connected");
          firstOutcome?.();
        } else if (seq !== undefined) {
          try {
            await options.onDispatch({ type, id: payload.id, seq, data: payload.d });
          } catch (error) {
            failedAccept = true;
            context.logger.error(
              { channel: context.channel, seq, err: { message: (error as Error).message } },
              "QQ event not accepted; resuming from before it so the platform replays it",
            );
            return dropAndResume("an event was not accepted");
          }
        }
        if (seq !== undefined && session && seq > session.seq) {
          session = { ...session, seq };
          await saveSession();
        }
      });
    });
    ws.on("error", (error) => {
      context.logger.warn(
        { channel: context.channel, err: { message: error.message } },
        "QQ gateway socket error",
      );
    });
    ws.on("close", (code) => {
      if (socket === ws) socket = undefined;
      if (terminateTimer) clearTimeout(terminateTimer);
      clearTimers();
      if (stopped || current !== generation) return;
      const fatal = fatalCloses[code];
      if (fatal) return fail(fatal);
      if (code === 4004) {
        options.tokens.invalidate();
        authFailures += 1;
        if (authFailures >= 2)
          return fail(
            "the platform rejected the access token twice (close 4004): check appId and clientSecret",
          );
      }
      if (reidentifyCloses.has(code)) {
        session = undefined;
        void saveSession();
      }
      context.setState("retrying", `QQ gateway closed (${code}); reconnecting`);
      // A reconnect the platform asked for, or our own resume after a failed accept, goes at once.
      scheduleReconnect(code === resumableClose ? 0 : undefined);
    });
  };

  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      context.setState("retrying", "QQ gateway not connected yet");
      resolve();
    }, 5000);
    firstOutcome = () => {
      clearTimeout(timer);
      firstOutcome = undefined;
      resolve();
    };
    void connect();
  });

  return {
    async stop() {
      stopped = true;
      firstOutcome?.();
      if (reconnectTimer) clearTimeout(reconnectTimer);
      clearTimers();
      const current = socket;
      socket = undefined;
      if (current && current.readyState !== WebSocket.CLOSED) {
        const closed = new Promise<void>((resolve) => current.once("close", () => resolve()));
        current.close(resumableClose);
        const timer = setTimeout(() => current.terminate(), 2000);
        await closed;
        clearTimeout(timer);
      }
      await queue;
      await writes;
    },
  };
}
