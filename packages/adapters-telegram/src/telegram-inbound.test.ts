import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createScriptedModel } from "@downcity/core/scripted";
import { createRecordingContext } from "@downcity/core/test";
import { until } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createTelegramAdapter } from "./telegram-adapter.js";
import { startFakeTelegramServer } from "./test/fake-telegram-server.js";
import { useTelegramHostWorld } from "./test/telegram-host.js";

// A complete 1x1 PNG: the host sniffs the bytes, so they must be a real image.
const png = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);

const world = useTelegramHostWorld("downcity-tg-inbound-");
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe("telegram media and button presses in", () => {
  it("stores a photo under .downcity/media before the update is confirmed, and the model gets it as a file part", async () => {
    const { root, server } = await world.create();
    const model = createScriptedModel(["a red dot"]);
    await world.start({ rootDir: root, server, tools: {}, model: model.model });
    const photo = server.addFile(png, "photos/file_1.jpg");
    const thumb = server.addFile(png.subarray(0, 20), "photos/thumb.jpg");
    const id = server.injectMessage({
      caption: "what is this?",
      media: {
        photo: [
          { ...thumb, width: 1, height: 1 },
          { ...photo, width: 90, height: 90 },
        ],
      },
    });
    await until(() => server.sent()[0], "the answer");
    expect(server.isConfirmed(id)).toBe(true);
    expect(server.downloads()).toEqual(["photos/file_1.jpg"]);
    // The poll that confirmed the update came after the file was fetched.
    const confirming = server.calls("getUpdates").find((call) => Number(call.payload.offset) > id);
    expect(confirming?.at).toBeGreaterThanOrEqual(server.calls("getFile")[0]?.at ?? Number.POSITIVE_INFINITY);
    const seen = model.calls[0]?.messages.at(-1)?.text ?? "";
    expect(seen).toContain("what is this?");
    expect(seen).toContain(`[file image/png ${png.length} bytes]`);
    const history = await readFile(join(root, ".downcity/context/tg%3A42/messages/messages.jsonl"), "utf8");
    const [path] = /\.downcity\/media\/tg%3A42\/[0-9a-f]{16}-[\w.-]+\.png/.exec(history) ?? [];
    expect(await readFile(join(root, path as string))).toEqual(png);
    expect(history).not.toContain(png.toString("base64"));
  });

  it("tells the user when a file is too large for the Bot API, without a model failure", async () => {
    const { root, server } = await world.create();
    const model = createScriptedModel(["noted"]);
    await world.start({ rootDir: root, server, tools: {}, model: model.model });
    const big = server.addFile(new Uint8Array(21 * 1024 * 1024), "documents/huge.zip");
    server.injectMessage({ media: { document: { ...big, file_name: "huge.zip" } } });
    const notice = await until(
      () => server.sent().find((sent) => /couldn't download/.test(sent.text)),
      "the notice",
    );
    expect(notice.text).toMatch(/huge\.zip: too large/);
    expect(server.downloads()).toEqual([]);
  });

  it("hands a button press to the inbox as an action under the pressed message", async () => {
    const server = await startFakeTelegramServer();
    cleanup.push(() => server.close());
    const recording = await createRecordingContext({ channel: "tg" });
    cleanup.push(() => recording.dispose());
    const adapter = createTelegramAdapter({
      token: server.token,
      apiRoot: server.url,
      pollTimeoutSeconds: 1,
    });
    cleanup.push(() => adapter.stop());
    await adapter.start(recording.context);
    const { messageId } = await adapter.send(
      { chatId: "42" },
      { text: "Allow?", actions: [{ id: "ap:K7Q2:once", label: "Allow once" }] },
      { idempotencyKey: "k" },
    );
    const id = server.pressButton(Number(messageId), "ap:K7Q2:once");
    await recording.until(() => server.isConfirmed(id), "the press confirmed");
    expect(recording.events).toEqual([
      expect.objectContaining({
        eventId: String(id),
        chatId: "42",
        messageId,
        text: "",
        action: { id: "ap:K7Q2:once", callbackId: "1" },
      }),
    ]);
    expect(server.calls("getUpdates")[0]?.payload.allowed_updates).toEqual(["message", "callback_query"]);
  });
});
