import { describe, expect, it } from "vitest";
import { useFakeTelegramAdapter } from "./test/use-fake-telegram-adapter.js";

const bed = useFakeTelegramAdapter();
const actions = [
  { id: "ok", label: "Allow once" },
  { id: "no", label: "Deny" },
];

async function sentWithButtons() {
  const telegram = await bed.adapter();
  const target = { chatId: "-1001234567890", threadId: "5" };
  const { messageId } = await telegram.send(
    target,
    { text: "Allow `ls`?", actions },
    { idempotencyKey: "k" },
  );
  if (!telegram.editing || !messageId) throw new Error("no editing or no message id");
  return { telegram, editing: telegram.editing, target, messageId };
}

describe("telegram editing and button answers", () => {
  it("edits the text with editMessageText and removes the keyboard when actions is empty", async () => {
    const { editing, target, messageId } = await sentWithButtons();
    await editing.edit(target, messageId, { text: "Allowed by **Ada**", actions: [] });
    const [message] = bed.fake.sent();
    expect(message).toMatchObject({ text: "Allowed by <b>Ada</b>", edits: 1 });
    expect(message?.reply_markup).toBeUndefined();
    expect(bed.fake.calls("editMessageText")[0]?.payload).toMatchObject({
      chat_id: target.chatId,
      message_id: Number(messageId),
      parse_mode: "HTML",
    });
    // The text edit already removed the keyboard: the explicit removal is "not modified", which is success.
    expect(bed.fake.calls("editMessageReplyMarkup")).toHaveLength(1);
  });

  it("treats an unchanged edit (message is not modified) as success", async () => {
    const { editing, target, messageId } = await sentWithButtons();
    await editing.edit(target, messageId, { text: "Allow `ls`?", actions });
    await editing.edit(target, messageId, { text: "Allow `ls`?", actions });
    expect(bed.fake.sent()[0]?.edits).toBe(0);
    expect(bed.fake.calls("editMessageText")).toHaveLength(2);
  });

  it("removes only the buttons when the text is empty", async () => {
    const { editing, target, messageId } = await sentWithButtons();
    await editing.edit(target, messageId, { text: "", actions: [] });
    expect(bed.fake.calls("editMessageText")).toHaveLength(0);
    expect(bed.fake.sent()[0]).toMatchObject({ text: "Allow <code>ls</code>?", edits: 1 });
    expect(bed.fake.sent()[0]?.reply_markup).toBeUndefined();
  });

  it("falls back to plain text once when the edit's HTML is refused", async () => {
    const { editing, target, messageId } = await sentWithButtons();
    bed.fake.failNextHtmlParse();
    await editing.edit(target, messageId, { text: "**Step 2** running" });
    expect(bed.fake.calls("editMessageText").map((call) => call.payload.parse_mode)).toEqual([
      "HTML",
      undefined,
    ]);
    expect(bed.fake.sent()[0]?.text).toBe("Step 2 running");
  });

  it("throws a permanent error for a message that is gone, and deletes idempotently", async () => {
    const { editing, target, messageId } = await sentWithButtons();
    await editing.delete?.(target, messageId);
    expect(bed.fake.sent()[0]?.deleted).toBe(true);
    await editing.delete?.(target, messageId);
    await expect(editing.edit(target, messageId, { text: "late" })).rejects.toMatchObject({
      permanent: true,
      message: expect.stringContaining("message to edit not found"),
    });
  });

  it("answers a button press with a toast through answerCallbackQuery, once", async () => {
    const { telegram, messageId } = await sentWithButtons();
    bed.fake.pressButton(Number(messageId), "ok");
    const event = {
      action: { id: "ok", callbackId: "1" },
    } as Parameters<NonNullable<typeof telegram.answerAction>>[0];
    await telegram.answerAction?.(event, "Only approvers can answer");
    expect(bed.fake.callbackAnswers()).toEqual([
      { callback_query_id: "1", text: "Only approvers can answer" },
    ]);
    await expect(telegram.answerAction?.(event, "again")).rejects.toMatchObject({
      message: expect.stringContaining("query is too old"),
    });
  });
});
