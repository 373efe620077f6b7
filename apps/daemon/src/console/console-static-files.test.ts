import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStaticFiles } from "./console-static-files.js";

describe("console static files", () => {
  let base: string;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "dc-static-"));
    await mkdir(join(base, "web", "assets"), { recursive: true });
    await writeFile(join(base, "web", "assets", "app-1.js"), "export {}");
    await writeFile(join(base, "web", "login.html"), "<p>sign in</p><!--message-->");
    await writeFile(join(base, "secret.txt"), "outside the root");
    const files = createStaticFiles(join(base, "web"));
    server = createServer((request, response) => {
      void files.send(request.url ?? "/", response).then((sent) => {
        if (!sent) {
          response.writeHead(404);
          response.end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await rm(base, { recursive: true, force: true });
  });

  it("serves hashed assets with a long cache and their type", async () => {
    const response = await fetch(`${url}/assets/app-1.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toContain("immutable");
  });

  it("never serves a file outside its root, however the path is spelled", async () => {
    const { request } = await import("node:http");
    // Raw paths: fetch would normalise the dots away before sending.
    for (const path of [
      "/../secret.txt",
      "/assets/../../secret.txt",
      "/%2e%2e/secret.txt",
      "/..%2fsecret.txt",
      "/%00",
    ]) {
      const status = await new Promise<number>((resolve, reject) => {
        const outgoing = request(`${url}${path}`, { path }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        outgoing.on("error", reject);
        outgoing.end();
      });
      expect(status, path).toBe(404);
    }
  });

  it("fills the login page's message slot", async () => {
    const files = createStaticFiles(join(base, "web"));
    expect(await files.loginPage("<p>expired</p>")).toBe("<p>sign in</p><p>expired</p>");
  });
});
