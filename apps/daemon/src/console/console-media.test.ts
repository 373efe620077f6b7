import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DowncityError } from "@downcity/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendMediaFile } from "./console-media.js";

const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

describe("console media files", () => {
  let root: string;
  let server: Server;
  let url: string;
  const get = (path: string) => fetch(`${url}/?path=${encodeURIComponent(path)}`);
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "dc-media-"));
    const media = join(root, ".downcity", "media", "telegram%3A42");
    await mkdir(media, { recursive: true });
    await writeFile(join(media, "ab12-photo.png"), png);
    // A page disguised as an image: its bytes decide, so it is only ever a download.
    await writeFile(join(media, "cd34-evil.png"), "<html><script>alert(1)</script></html>");
    await writeFile(join(root, "downcity.json"), '{"secret": "outside the media folder"}');
    await symlink(join(root, "downcity.json"), join(media, "ef56-link.txt"));
    server = createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://x").searchParams.get("path") ?? "";
      sendMediaFile(response, root, path).catch((error: unknown) => {
        response.writeHead(DowncityError.isInstance(error) && error.code === "NOT_FOUND" ? 404 : 500);
        response.end(String((error as Error).message));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await rm(root, { recursive: true, force: true });
  });

  it("serves an image inline with the type its bytes show, sandboxed", async () => {
    const response = await get(".downcity/media/telegram%3A42/ab12-photo.png");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("content-disposition")).toBe("inline; filename*=UTF-8''ab12-photo.png");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(Buffer.from(await response.arrayBuffer())).toEqual(png);
  });

  it("offers anything that is not an image as a download, whatever its name says", async () => {
    const response = await get(".downcity/media/telegram%3A42/cd34-evil.png");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment;/);
  });

  it("refuses every path outside the media folder: parents, absolute paths, links out, the folder itself", async () => {
    for (const path of [
      "downcity.json",
      ".downcity/media/../../downcity.json",
      ".downcity/media/telegram%3A42/../../../downcity.json",
      join(root, "downcity.json"),
      ".downcity/media/telegram%3A42/ef56-link.txt",
      ".downcity/media",
      ".downcity/media/telegram%3A42",
      ".downcity/media/telegram%3A42/missing.png",
      "",
    ]) {
      const response = await get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(await response.text()).not.toContain("outside the media folder");
    }
  });
});
