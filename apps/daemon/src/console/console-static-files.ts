import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".json": "application/json",
  ".map": "application/json",
};

/** Serves the prebuilt page's files. */
export interface StaticFiles {
  /** Sends the file at the URL path; false when there is none (or the path leaves the root). */
  send(path: string, response: ServerResponse, status?: number): Promise<boolean>;
  /** The page itself (`index.html`) with `head` (already escaped HTML) added to its head; undefined when not built. */
  indexPage(head: string): Promise<string | undefined>;
  /** The login page, with `message` (already escaped HTML) in its message slot. */
  loginPage(message: string): Promise<string>;
}

/** Serves files under `root`; hashed assets are cached for a year, HTML never. */
export function createStaticFiles(root: string): StaticFiles {
  const resolveFile = (path: string): string | undefined => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return undefined;
    }
    if (decoded.includes("\0")) return undefined;
    const file = normalize(join(root, decoded));
    return file.startsWith(root.endsWith(sep) ? root : `${root}${sep}`) ? file : undefined;
  };
  return {
    async send(path, response, status = 200) {
      const file = resolveFile(path);
      if (!file) return false;
      const body = await readFile(file).catch(() => undefined);
      if (!body) return false;
      const type = contentTypes[extname(file)] ?? "application/octet-stream";
      response.writeHead(status, {
        "content-type": type,
        "cache-control": path.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-store",
      });
      response.end(body);
      return true;
    },
    async indexPage(head) {
      const template = await readFile(join(root, "index.html"), "utf8").catch(() => undefined);
      return template?.replace("</head>", `${head}</head>`);
    },
    async loginPage(message) {
      const template = await readFile(join(root, "login.html"), "utf8").catch(
        () => "<!doctype html><title>Downcity console</title><!--message--><p>Run downcity console open.</p>",
      );
      return template.replace("<!--message-->", message);
    },
  };
}
