import { AttachmentTooLargeError, DowncityError, fetchLimited } from "@downcity/core";
import type { Api } from "grammy";
import type { TelegramFileDownload } from "./map-telegram-attachments.js";
import type { GrammySignal } from "./polling-receiver.js";
import { describeTelegramError } from "./telegram-error.js";

/** Bots download files of at most 20 MB through the Bot API (getFile answers "file is too big" above). */
export const telegramDownloadLimitBytes = 20 * 1024 * 1024;

/**
 * Downloads incoming files the Bot API way: `getFile` gives a `file_path`, and the bytes are at
 * `<apiRoot>/file/bot<token>/<file_path>`, read within the host's size limit and signal. The URL
 * holds the token, so no error this throws names it: failures say what went wrong, never where.
 */
export function createTelegramFileDownload(options: {
  api: Api;
  token: string;
  apiRoot: string;
}): TelegramFileDownload {
  const { api, token, apiRoot } = options;
  return (fileId) =>
    async ({ maxBytes, signal }) => {
      let path: string | undefined;
      try {
        const file = await api.getFile(fileId, signal as unknown as GrammySignal);
        if (file.file_size !== undefined && file.file_size > maxBytes)
          throw new AttachmentTooLargeError(maxBytes, file.file_size);
        path = file.file_path;
      } catch (error) {
        if (error instanceof AttachmentTooLargeError) throw error;
        const failure = describeTelegramError(error, token);
        if (/file is too big/i.test(failure.message))
          throw new AttachmentTooLargeError(Math.min(maxBytes, telegramDownloadLimitBytes));
        throw new DowncityError("SERVICE_ERROR", `Telegram could not give the file: ${failure.message}`);
      }
      if (!path) throw new DowncityError("SERVICE_ERROR", "Telegram gave no file_path for the file");
      const url = `${apiRoot}/file/bot${token}/${path.split("/").map(encodeURIComponent).join("/")}`;
      try {
        return await fetchLimited(url, { maxBytes, signal });
      } catch (error) {
        if (error instanceof AttachmentTooLargeError) throw error;
        if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
          throw error;
        // fetch's own errors may carry the URL (and so the token) in their message or cause: never pass them on.
        const reason = DowncityError.isInstance(error) ? error.message : "the connection failed";
        throw new DowncityError("SERVICE_ERROR", `the file download from Telegram failed: ${reason}`);
      }
    };
}
