import { z } from "zod";

const cdnMediaSchema = z
  .object({
    encrypt_query_param: z.string().optional(),
    aes_key: z.string().optional(),
    encrypt_type: z.number().optional(),
    full_url: z.string().optional(),
  })
  .optional()
  .catch(undefined);

/** iLink's item types (`MessageItemType`). */
export const weixinItemType = { text: 1, image: 2, voice: 3, file: 4, video: 5 } as const;

/** One item of a message (`MessageItem`): text, image, voice (with its transcript), file or video. */
export const weixinItemSchema = z.object({
  type: z.number().optional().catch(undefined),
  text_item: z.object({ text: z.string().optional() }).optional().catch(undefined),
  image_item: z
    .object({ media: cdnMediaSchema, aeskey: z.string().optional(), mid_size: z.number().optional() })
    .optional()
    .catch(undefined),
  voice_item: z
    .object({
      media: cdnMediaSchema,
      encode_type: z.number().optional(),
      playtime: z.number().optional(),
      text: z.string().optional(),
    })
    .optional()
    .catch(undefined),
  file_item: z
    .object({ media: cdnMediaSchema, file_name: z.string().optional(), len: z.string().optional() })
    .optional()
    .catch(undefined),
  video_item: z
    .object({ media: cdnMediaSchema, video_size: z.number().optional() })
    .optional()
    .catch(undefined),
});

/** A message item as iLink sends it. */
export type WeixinItem = z.output<typeof weixinItemSchema>;

/** iLink's message kinds (`MessageType`): from a user, or from a bot (the bot's own, echoed). */
export const weixinMessageType = { user: 1, bot: 2 } as const;

/** One message of a getupdates answer (`WeixinMessage`), validated loosely: unknown fields are ignored. */
export const weixinMessageSchema = z.object({
  seq: z.number().optional().catch(undefined),
  message_id: z.string().optional().catch(undefined),
  from_user_id: z.string().optional().catch(undefined),
  to_user_id: z.string().optional().catch(undefined),
  create_time_ms: z.number().optional().catch(undefined),
  group_id: z.string().optional().catch(undefined),
  message_type: z.number().optional().catch(undefined),
  item_list: z.array(weixinItemSchema).optional().catch(undefined),
  context_token: z.string().optional().catch(undefined),
});

/** A message as iLink delivers it. */
export type WeixinMessage = z.output<typeof weixinMessageSchema>;

/** A getupdates answer: the messages and the cursor to send next time. */
export const getUpdatesAnswerSchema = z.object({
  msgs: z.array(z.unknown()).optional().catch(undefined),
  get_updates_buf: z.string().optional().catch(undefined),
  longpolling_timeout_ms: z.number().optional().catch(undefined),
});
