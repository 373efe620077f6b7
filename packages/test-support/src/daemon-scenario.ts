import type { ChannelFake, FakeIncoming } from "@downcity/core/test";
import { isAlive, until } from "@downcity/testkit";
import { describe, expect, test } from "vitest";
import { useDaemonTest } from "./daemon-test.js";

/** Options of `testDaemonScenario`. */
export interface DaemonScenarioOptions<Fake extends ChannelFake> {
  /** The platform, in the describe title. */
  platform: string;
  /** The channel instance name in `downcity.json` (and in `channels list`); also names the temp folders. */
  channel: string;
  startFake(): Promise<Fake>;
  /**
   * The instance's options pointing at `fake` (the scenario adds `access`), and the `.env` holding the
   * secrets they name as `${VAR}`.
   */
  configure(fake: Fake): { options: Record<string, unknown>; env: Record<string, string> };
  /** Whether the adapter's connection to the fake is up. */
  connected(fake: Fake): boolean;
  /** Platform ids: a user's direct chat and user id, an allowed group, another group, a group member. */
  ids: { dmChat: string; user: string; group: string; otherGroup: string; member: string };
  /** A thread of the allowed group, on platforms with threads: the group answer must land in it. */
  threadId?: string;
  /** Checks the platform request that carried the answer to `question` (reply threading, idempotency). */
  checkAnswer(fake: Fake, question: { eventId: string }): void;
  /**
   * After the restart: the platform delivers the slow question (`message`, platform id `eventId`) again,
   * as it does for an event whose acknowledgement it did not see; the scenario then checks it was not
   * answered twice.
   */
  redeliver(fake: Fake, slow: { eventId: string; message: FakeIncoming }): Promise<void>;
  /** What no log of the daemon may contain (app secrets, token patterns). */
  secrets: Array<string | RegExp>;
}

/**
 * The daemon scenario for an adapter whose fake platform is a `ChannelFake`: the built CLI starts a
 * real daemon loading the adapter by package name, with a scripted model. It registers a describe with
 * three tests, run in order on one daemon: a DM pairing then approval, the group policy (allowlist and
 * mention), and a SIGKILL between accept and reply followed by a restart and a redelivery, which must
 * give exactly one reply; no log line may carry a secret.
 */
export function testDaemonScenario<Fake extends ChannelFake>(options: DaemonScenarioOptions<Fake>): void {
  const { dmChat, user, group, otherGroup, member } = options.ids;
  const thread = options.threadId === undefined ? {} : { threadId: options.threadId };

  describe(`${options.platform} through the daemon: pairing, a group mention, a kill between accept and reply`, () => {
    const daemon = useDaemonTest({
      name: options.channel,
      startFake: options.startFake,
      // The first run of the slow question hangs until the test has killed the daemon.
      hold: "slow question",
      configure: (fake) => {
        const { options: channelOptions, env } = options.configure(fake);
        const access = { dm: "pairing", groups: "allowlist", allowGroups: [group] };
        return { channels: { [options.channel]: { ...channelOptions, access } }, env };
      },
    });
    const sentTo = (chatId: string, text: string | RegExp) =>
      daemon.fake
        .sent()
        .filter(
          (message) =>
            message.chatId === chatId &&
            (typeof text === "string" ? message.text === text : text.test(message.text)),
        );
    const direct = (text: string): FakeIncoming => ({
      chatType: "direct",
      chatId: dmChat,
      userId: user,
      text,
    });

    test("an unknown user's DM gets a pairing code and no model call; after approve it and the next DM are answered", async () => {
      await until(() => options.connected(daemon.fake), "the connection to the platform");
      const listed = await daemon.project.json<{ channels: Array<{ name: string; state: string }> }>([
        "channels",
        "list",
        "--json",
      ]);
      expect(listed.channels).toEqual([
        expect.objectContaining({ name: options.channel, state: "connected" }),
      ]);

      expect((await daemon.fake.deliver(direct("hello?"))).acked).toBe(true);
      const pairing = await until(() => sentTo(dmChat, /downcity access approve/)[0], "the pairing reply");
      const code = /approve ([A-Z2-9]{8})/.exec(pairing.text)?.[1] as string;
      expect(code).toMatch(/^[A-Z2-9]{8}$/);
      expect(daemon.model.calls).toHaveLength(0);

      await daemon.project.json(["access", "approve", code, "--json"]);
      const question = await daemon.fake.deliver(direct("what is 2+2?"));
      await until(() => sentTo(dmChat, "echo: what is 2+2?")[0], "the answer after approval");
      options.checkAnswer(daemon.fake, question);
      // The message that asked for the code was kept and is answered once approved.
      await until(() => sentTo(dmChat, "echo: hello?")[0], "the held first message answered");
      expect([...daemon.model.userTexts()].sort()).toEqual(["hello?", "what is 2+2?"]);
    }, 60_000);

    test("a group message without a mention is ignored; one with the bot's mention is answered", async () => {
      const before = daemon.model.calls.length;
      const inGroup = { chatType: "group", chatId: group, userId: member, ...thread } as const;
      expect((await daemon.fake.deliver({ ...inGroup, text: "just chatting" })).acked).toBe(true);
      await daemon.fake.deliver({
        chatType: "group",
        chatId: otherGroup,
        userId: member,
        text: "elsewhere",
        mentionBot: true,
      });
      await daemon.fake.deliver({ ...inGroup, text: "status?", mentionBot: true });
      const reply = await until(() => sentTo(group, "echo: status?")[0], "the group reply");
      expect(reply.chatId).toBe(group);
      if (options.threadId !== undefined) expect(reply.threadId).toBe(options.threadId);
      expect(daemon.model.userTexts().slice(before)).toEqual(["status?"]);
      expect(sentTo(group, /just chatting/)).toHaveLength(0);
      expect(sentTo(otherGroup, /./)).toHaveLength(0);
    }, 60_000);

    test("a SIGKILL between accept and reply, then a restart, gives exactly one reply", async () => {
      const status = await daemon.project.json<{ pid: number }>(["status", "--json"]);
      const message = direct("slow question");
      const slow = await daemon.fake.deliver(message);
      // Acknowledged to the platform (so durable), and the run reached the model, but not answered yet.
      expect(slow.acked).toBe(true);
      await until(() => daemon.model.holding(), "the run of the slow question");
      process.kill(status.pid, "SIGKILL");
      await until(() => !isAlive(status.pid) || undefined, "the daemon to die");
      daemon.model.release();
      expect(sentTo(dmChat, "echo: slow question")).toHaveLength(0);

      await daemon.project.json(["start", "--json"]);
      await until(() => sentTo(dmChat, "echo: slow question")[0], "the reply after the restart");
      await options.redeliver(daemon.fake, { eventId: slow.eventId, message });
      await daemon.fake.deliver(direct("after the restart"));
      await until(() => sentTo(dmChat, "echo: after the restart")[0], "the next answer");
      expect(sentTo(dmChat, "echo: slow question")).toHaveLength(1);
      expect(daemon.model.userTexts().filter((text) => text === "after the restart")).toHaveLength(1);
      expect(daemon.model.userTexts().filter((text) => text === "slow question").length).toBeLessThanOrEqual(
        2,
      );

      for (const text of await daemon.project.readLogs())
        for (const secret of options.secrets)
          if (typeof secret === "string") expect(text).not.toContain(secret);
          else expect(text).not.toMatch(secret);
    }, 90_000);
  });
}
