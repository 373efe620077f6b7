import { describe, expect, it } from "vitest";
import { silentLogger } from "../logger/logger.js";
import { createMessageIntake, type PendingMessage } from "./message-intake.js";

/** An intake whose runs answer at once, except the messages listed in `hold`, which stay in flight. */
function intake(hold: string[] = []) {
  const enqueued: string[] = [];
  let id = 0;
  const send = createMessageIntake<string>({
    generateId: () => `h${id++}`,
    now: () => new Date(0),
    logger: silentLogger,
    emit: () => {},
    closed: () => false,
    enqueue: (_contextId, pending: PendingMessage<string>) => {
      const messageId = pending.message.messageId ?? "";
      enqueued.push(messageId);
      if (!hold.includes(messageId)) pending.resolve(`answer ${messageId}`);
    },
  });
  return { send: (messageId: string) => send({ contextId: "c", text: "hi", messageId }), enqueued };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("message intake", () => {
  it("remembers the last 1,000 answered messages: an older repeat reaches the run again", async () => {
    const { send, enqueued } = intake();
    const first = send("m0");
    for (let index = 1; index <= 1000; index++) void send(`m${index}`);
    await settle();
    const recent = send("m1000");
    expect(send("m1000")).toBe(recent);
    expect(enqueued.filter((id) => id === "m1000")).toHaveLength(1);
    const again = send("m0");
    expect(again).not.toBe(first);
    expect(enqueued.filter((id) => id === "m0")).toHaveLength(2);
  });

  it("never forgets a message still in flight, however many are answered meanwhile", async () => {
    const { send, enqueued } = intake(["slow"]);
    const slow = send("slow");
    for (let index = 0; index < 1500; index++) void send(`m${index}`);
    await settle();
    expect(send("slow")).toBe(slow);
    expect(enqueued.filter((id) => id === "slow")).toHaveLength(1);
  });
});
