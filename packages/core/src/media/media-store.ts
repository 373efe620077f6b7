import { createHash } from "node:crypto";
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import type { channelAttachmentSchema } from "../channel/adapter/channel-attachment.js";
import { encodeContextId } from "../context/context-id.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import type { MessageAttachment } from "../history/message-attachment.js";
import { downcityPaths, statePath } from "../paths/downcity-paths.js";
import {
  attachmentKindPhrase,
  describeFailedAttachment,
  describeInlineAttachment,
} from "./attachment-note.js";
import { AttachmentTooLargeError } from "./attachment-too-large.js";
import { safeFileName } from "./safe-file-name.js";
import { sniffMediaType } from "./sniff-media-type.js";

type ParsedAttachment = z.output<typeof channelAttachmentSchema>;

/** The default of `media.maxBytes`: 20 MiB a file. */
export const defaultMediaMaxBytes = 20 * 1024 * 1024;

/** What storing an event's attachments gave: references for history, and what to tell the user. */
export interface StoredAttachments {
  attachments: MessageAttachment[];
  /** One short line per attachment that was not kept ("photo.jpg: too large, 25 MB > 20 MB"). */
  failures: string[];
}

/** Keeps incoming files under `.downcity/media/<context>/`; see `createMediaStore`. */
export interface MediaStore {
  store(contextId: string, attachments: readonly ParsedAttachment[]): Promise<StoredAttachments>;
}

/**
 * Creates the media store of a project. Each file is named `<sha256 prefix>-<safe name>` (the same
 * bytes resent land on the same file), written atomically and fsynced; its type is sniffed from the
 * bytes. A download over `maxBytes`, failing or slower than `timeoutMs` becomes a failure, never a throw.
 */
export function createMediaStore(options: {
  rootDir: string;
  maxBytes?: number;
  timeoutMs?: number;
}): MediaStore {
  const maxBytes = options.maxBytes ?? defaultMediaMaxBytes;
  const timeoutMs = options.timeoutMs ?? 60_000;

  const storeFile = async (contextId: string, attachment: ParsedAttachment): Promise<MessageAttachment> => {
    if (attachment.size !== undefined && attachment.size > maxBytes)
      throw new AttachmentTooLargeError(maxBytes, attachment.size);
    if (!attachment.fetch) throw new Error("the platform gave no way to download it");
    const bytes = await attachment.fetch({ maxBytes, signal: AbortSignal.timeout(timeoutMs) });
    if (bytes.byteLength > maxBytes) throw new AttachmentTooLargeError(maxBytes, bytes.byteLength);
    const mediaType = sniffMediaType(bytes, attachment.mediaType);
    const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
    const name = safeFileName(attachment.name, attachment.kind, mediaType);
    const folder = encodeContextId(contextId);
    const folderPath = join(downcityPaths(options.rootDir).mediaDir, folder);
    const relative = statePath("media", folder, `${hash}-${name}`);
    const absolute = join(folderPath, `${hash}-${name}`);
    const existing = await stat(absolute).catch(() => undefined);
    if (existing?.size !== bytes.byteLength) {
      await mkdir(folderPath, { recursive: true });
      await writeFileAtomic(absolute, bytes);
    }
    return {
      kind: attachment.kind,
      mediaType,
      name,
      size: bytes.byteLength,
      path: relative,
      ...(attachment.durationSeconds === undefined ? {} : { durationSeconds: attachment.durationSeconds }),
    };
  };

  return {
    async store(contextId, attachments) {
      const stored: StoredAttachments = { attachments: [], failures: [] };
      for (const attachment of attachments) {
        const inline = describeInlineAttachment(attachment);
        if (inline && !attachment.fetch) {
          stored.attachments.push({ kind: attachment.kind, note: inline });
          continue;
        }
        try {
          const file = await storeFile(contextId, attachment);
          stored.attachments.push(inline ? { ...file, note: inline } : file);
        } catch (error) {
          const reason = failureReason(error, timeoutMs);
          const label = attachment.name ?? attachmentKindPhrase(attachment.kind);
          stored.failures.push(`${label}: ${reason}`);
          stored.attachments.push({
            kind: attachment.kind,
            ...(attachment.name ? { name: safeFileName(attachment.name, attachment.kind) } : {}),
            note: describeFailedAttachment(attachment.kind, attachment.name, reason),
          });
        }
      }
      return stored;
    },
  };
}

function failureReason(error: unknown, timeoutMs: number): string {
  if (error instanceof AttachmentTooLargeError) return error.message;
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `the download took longer than ${Math.round(timeoutMs / 1000)} s`;
  return error instanceof Error ? error.message : String(error);
}
