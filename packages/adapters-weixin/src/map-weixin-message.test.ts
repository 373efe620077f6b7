import { describe, expect, test } from "vitest";
import { mapWeixinMessage } from "./map-weixin-message.js";
import { encryptAesEcb, parseAesKey } from "./weixin-cdn.js";
import { parseWeixinJson } from "./weixin-http.js";
import { weixinMessageSchema } from "./weixin-message.js";

const options = { cdnBaseUrl: "http://127.0.0.1:1/c2c", downloadTimeoutMs: 1000, mentionNames: ["Downcity"] };
const map = (message: Record<string, unknown>) =>
  mapWeixinMessage(weixinMessageSchema.parse(message), options);

describe("mapWeixinMessage", () => {
  test("a direct text message: the sender's chat, its message_id as the event id", () => {
    const mapped = map({
      message_id: "7300000000000000123",
      from_user_id: "wxid_a@im.wechat",
      message_type: 1,
      item_list: [{ type: 1, text_item: { text: "hello" } }],
      context_token: "ctx-1",
    });
    expect(mapped).toMatchObject({
      event: {
        eventId: "7300000000000000123",
        chatId: "wxid_a@im.wechat",
        chatType: "direct",
        text: "hello",
        fromBot: false,
      },
      contextToken: "ctx-1",
    });
  });

  test("uint64 ids keep every digit", () => {
    const parsed = parseWeixinJson(
      '{"msgs":[{"message_id":7300000000000000123,"text":"\\"message_id\\":1"}]}',
    ) as {
      msgs: Array<{ message_id: string; text: string }>;
    };
    expect(parsed.msgs[0]?.message_id).toBe("7300000000000000123");
    expect(parsed.msgs[0]?.text).toBe('"message_id":1');
  });

  test("a group message mentions the bot only with @name at the start; the mention is stripped", () => {
    const base = { message_id: "1", from_user_id: "wxid_b", group_id: "g@chatroom", message_type: 1 };
    const mentioned = map({
      ...base,
      item_list: [{ type: 1, text_item: { text: "@Downcity\u2005status?" } }],
    });
    expect(mentioned).toMatchObject({
      event: { chatId: "g@chatroom", chatType: "group", text: "status?", mentionedBot: true },
    });
    const plain = map({ ...base, item_list: [{ type: 1, text_item: { text: "@Downcityfan hi" } }] });
    expect(plain).toMatchObject({ event: { mentionedBot: false, text: "@Downcityfan hi" } });
  });

  test("a voice note carries WeChat's transcript in the text, marked as machine-made; bots and empty messages", () => {
    const voice = map({
      message_id: "2",
      from_user_id: "wxid_c",
      item_list: [
        {
          type: 3,
          voice_item: { media: { encrypt_query_param: "p", aes_key: "k" }, encode_type: 6, text: "call mum" },
        },
      ],
    });
    expect(voice).toMatchObject({
      event: {
        text: "[WeChat's automatic transcript of the voice message: call mum]",
        attachments: [{ kind: "voice", mediaType: "audio/silk" }],
      },
    });
    expect(
      map({
        message_id: "3",
        from_user_id: "bot",
        message_type: 2,
        item_list: [{ type: 1, text_item: { text: "x" } }],
      }),
    ).toMatchObject({
      event: { fromBot: true },
    });
    expect(map({ message_id: "4", from_user_id: "wxid_d", item_list: [] })).toEqual({
      ignored: "nothing the agent can read",
    });
  });

  test("AES keys come as 16 raw bytes or their hex text, both base64-encoded, or an image's hex aeskey", () => {
    const key = Buffer.from("00112233445566778899aabbccddeeff", "hex");
    expect(parseAesKey(key.toString("base64"))).toEqual(key);
    expect(parseAesKey(Buffer.from(key.toString("hex")).toString("base64"))).toEqual(key);
    expect(parseAesKey(undefined, key.toString("hex"))).toEqual(key);
    expect(() => parseAesKey(Buffer.from("short").toString("base64"))).toThrow(/16 bytes/);
    expect(encryptAesEcb(Buffer.alloc(16), key).byteLength).toBe(32);
  });
});
