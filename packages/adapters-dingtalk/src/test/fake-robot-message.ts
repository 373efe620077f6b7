import type { FakeIncoming, FakeIncomingFile } from "@downcity/core/test";

/** The robot's own user id in conversations (`chatbotUserId`), as DingTalk encodes it. */
export const fakeChatbotUserId = "$:LWCP_v1:$fakeRobotUser0001";
/** The organisation the fake robot belongs to. */
export const fakeCorpId = "dingfakecorp0001";

/** A file the fake serves through its download API, by download code. */
export interface FakeStoredFile {
  data: Uint8Array;
  mediaType: string;
}

const msgtypeOf: Record<FakeIncomingFile["kind"], string> = {
  image: "picture",
  audio: "file",
  voice: "audio",
  video: "video",
  file: "file",
};

/**
 * Builds the robot message DingTalk's Stream callback carries (`data` of a `/v1.0/im/bot/messages/get` frame),
 * in the documented shape: text, richText (text with pictures), picture, audio (with `recognition`, here the
 * message's text), video and file; group messages that @ the robot carry `isInAtList` and the robot in
 * `atUsers`, their text without the mention. `store` keeps each file under a fresh download code.
 */
export function fakeRobotMessage(
  message: FakeIncoming,
  msgId: string,
  store: (file: FakeStoredFile) => string,
): Record<string, unknown> {
  const group = message.chatType === "group";
  const base: Record<string, unknown> = {
    msgId,
    conversationId: group ? message.chatId : `cidDirect${message.chatId}`,
    conversationType: group ? "2" : "1",
    ...(group ? { conversationTitle: `Group ${message.chatId}` } : {}),
    senderId: `$:LWCP_v1:$${message.userId}`,
    // A direct chat is keyed by the sender's staff id, so the fake's direct chat id is the user's.
    senderStaffId: group ? message.userId : message.chatId,
    senderNick: message.username ?? message.userId,
    senderCorpId: fakeCorpId,
    chatbotCorpId: fakeCorpId,
    chatbotUserId: fakeChatbotUserId,
    robotCode: "dingfakeclient000001",
    isAdmin: false,
    createAt: Date.now(),
    sessionWebhook: "https://oapi.dingtalk.com/robot/sendBySession?session=fake",
    sessionWebhookExpiredTime: Date.now() + 90 * 60_000,
    ...(group && message.mentionBot
      ? { isInAtList: true, atUsers: [{ dingtalkId: fakeChatbotUserId }] }
      : group
        ? { isInAtList: false, atUsers: [] }
        : {}),
  };
  const text = group && message.mentionBot ? ` ${message.text}` : message.text;
  if (message.nonText) return { ...base, msgtype: "unknownMsgType", content: {} };
  const [file] = message.files ?? [];
  if (!file) return { ...base, msgtype: "text", text: { content: text } };
  const downloadCode = store({ data: file.data, mediaType: file.mediaType });
  if (file.kind === "image" && message.text !== "")
    return {
      ...base,
      msgtype: "richText",
      content: { richText: [{ text }, { type: "picture", downloadCode, pictureDownloadCode: downloadCode }] },
    };
  const msgtype = msgtypeOf[file.kind];
  const content: Record<string, unknown> = { downloadCode };
  if (msgtype === "picture") content.pictureDownloadCode = downloadCode;
  if (msgtype === "audio") Object.assign(content, { duration: 3000, recognition: message.text });
  if (msgtype === "video") Object.assign(content, { duration: 4000, videoType: "mp4" });
  if (msgtype === "file") content.fileName = file.name ?? "file.bin";
  return { ...base, msgtype, content };
}
