import { readOutgoingFile } from "../../chat/outgoing-file.js";
import type { OutboxEntry } from "../../store/outbox-store.js";
import type { ChannelCapabilities, ChannelMessage } from "../adapter/channel-adapter.js";
import { ChannelSendError } from "../adapter/channel-send-error.js";

/**
 * The message an outbox chunk hands its adapter: the text, its buttons when the adapter shows
 * buttons, plus the bytes of its files read from their content-addressed copies under `rootDir`
 * (a copy gone or changed is a permanent failure).
 */
export async function outboxMessage(
  entry: OutboxEntry,
  rootDir: string | undefined,
  capabilities?: Pick<ChannelCapabilities, "actions">,
): Promise<ChannelMessage> {
  const actions = entry.actions?.length && capabilities?.actions ? { actions: entry.actions } : {};
  if (!entry.attachments?.length) return { text: entry.text, ...actions };
  if (rootDir === undefined)
    throw new ChannelSendError("this worker cannot read reply files (no project root)", { permanent: true });
  const attachments = await Promise.all(
    entry.attachments.map(async (file) => {
      const data = await readOutgoingFile(rootDir, file).catch((error: unknown) => {
        throw new ChannelSendError(`cannot send ${file.name}: ${(error as Error).message}`, {
          permanent: true,
          cause: error,
        });
      });
      return { name: file.name, mediaType: file.mediaType, size: file.size, sha256: file.sha256, data };
    }),
  );
  return { text: entry.text, attachments, ...actions };
}
