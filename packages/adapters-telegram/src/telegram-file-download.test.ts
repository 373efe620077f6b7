import { AttachmentTooLargeError } from "@downcity/core";
import { Api } from "grammy";
import { describe, expect, it } from "vitest";
import { createTelegramFileDownload } from "./telegram-file-download.js";
import { useFakeTelegramAdapter } from "./test/use-fake-telegram-adapter.js";

const bed = useFakeTelegramAdapter();

async function download() {
  await bed.adapter();
  const { token, url } = bed.fake;
  return createTelegramFileDownload({ api: new Api(token, { apiRoot: url }), token, apiRoot: url });
}

const options = (maxBytes = 1024 * 1024) => ({ maxBytes, signal: AbortSignal.timeout(10_000) });

describe("telegram file download", () => {
  it("downloads a file through getFile and the file path, bytes intact", async () => {
    const fetchFile = await download();
    const bytes = new Uint8Array(300_000).map((_, index) => index % 251);
    const file = bed.fake.addFile(bytes, "voice/file_7.oga");
    const got = await fetchFile(file.file_id)(options());
    expect(Buffer.from(got).equals(Buffer.from(bytes))).toBe(true);
    expect(bed.fake.calls("getFile").map((call) => call.payload.file_id)).toEqual([file.file_id]);
    expect(bed.fake.downloads()).toEqual(["voice/file_7.oga"]);
  });

  it("refuses a file over the limit before downloading it", async () => {
    const fetchFile = await download();
    const file = bed.fake.addFile(new Uint8Array(5000), "documents/big.bin");
    await expect(fetchFile(file.file_id)(options(4000))).rejects.toBeInstanceOf(AttachmentTooLargeError);
    expect(bed.fake.downloads()).toEqual([]);
  });

  it("says a file is too big for the Bot API (over 20 MB) without a download", async () => {
    const fetchFile = await download();
    const file = bed.fake.addFile(new Uint8Array(21 * 1024 * 1024), "videos/huge.mp4");
    const error = await fetchFile(file.file_id)(options(50 * 1024 * 1024)).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(AttachmentTooLargeError);
    expect(bed.fake.downloads()).toEqual([]);
  });

  it("never puts the token in an error: an unknown file, a failed download, a dead server", async () => {
    const fetchFile = await download();
    const secret = bed.fake.token.split(":")[1] as string;
    const unknown = await fetchFile("nope")(options()).catch((caught: Error) => caught);
    expect(String(unknown)).toMatch(/invalid file_id/);
    bed.fake.failNext("getFile", { status: 500, description: "Internal Server Error" });
    const failed = await fetchFile(bed.fake.addFile(new Uint8Array(3)).file_id)(options()).catch(
      (caught: Error) => caught,
    );
    expect(String(failed)).toMatch(/500/);
    const file = bed.fake.addFile(new Uint8Array(3));
    await bed.fake.close();
    const dead = await fetchFile(file.file_id)(options()).catch((caught: Error) => caught);
    expect(dead).toBeInstanceOf(Error);
    for (const error of [unknown, failed, dead]) {
      expect(String(error)).not.toContain(secret);
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(secret);
    }
  });
});
