import { until } from "@downcity/testkit";
import { describe, expect, test } from "vitest";
import { lastUserText, useTelegramDaemon } from "./telegram-daemon-world.js";

// End to end: a real detached daemon with the Telegram adapter on the fake Bot API, DMs by pairing.
describe("telegram through the daemon: pairing", () => {
  const daemon = useTelegramDaemon({ dm: "pairing", respond: (call) => `echo: ${lastUserText(call)}` });
  const sentTo = (chatId: number) => daemon.fake.sent().filter((sent) => sent.chat_id === String(chatId));

  test("after `access approve` the user is told, and the message that asked for pairing is answered", async () => {
    const hello = daemon.fake.injectMessage({ from: { id: 5001, username: "ada" }, text: "hello?" });
    const offer = await until(
      () => sentTo(5001).find((sent) => /access approve ([A-Z2-9]{8})/.test(sent.text)),
      "the pairing code",
    );
    expect(daemon.model.calls).toHaveLength(0);
    const code = /access approve ([A-Z2-9]{8})/.exec(offer.text)?.[1] as string;
    const approved = await daemon.client.servicesCommand({
      service: "access",
      action: "approve",
      payload: { code },
    });
    expect(approved.result).toMatchObject({ channel: "tg", userId: "5001", answered: true });
    await until(
      () => sentTo(5001).find((sent) => /the owner approved you/.test(sent.text)),
      "the approval notice",
    );
    const answer = await until(
      () => sentTo(5001).find((sent) => sent.text === "echo: hello?"),
      "the held answer",
    );
    const helloId = (daemon.fake.update(hello).message as { message_id: number }).message_id;
    expect(answer.reply_parameters?.message_id).toBe(helloId);
    expect(daemon.model.calls.map(lastUserText)).toEqual(["hello?"]);
  }, 60_000);
});
