// A read-only npm registry on 127.0.0.1 that serves packed tarballs by name, so `npm install` resolves
// a tarball's @downcity/* dependencies exactly as it would from the public registry.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { basename } from "node:path";

/** Reads `package/package.json` out of a packed tarball. */
export function tarballManifest(tarball) {
  return JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }));
}

/** Starts the registry for `tarballs`; returns its URL (ending in `/`) and `close()`. */
export async function startLocalRegistry(tarballs) {
  const byName = new Map();
  const byFile = new Map();
  for (const tarball of tarballs) {
    const manifest = tarballManifest(tarball);
    byName.set(manifest.name, { tarball, manifest, bytes: readFileSync(tarball) });
    byFile.set(basename(tarball), tarball);
  }
  let base = "";
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
    if (path.startsWith("/-/tarballs/") && byFile.has(path.slice("/-/tarballs/".length))) {
      response.writeHead(200, { "content-type": "application/octet-stream" });
      response.end(readFileSync(byFile.get(path.slice("/-/tarballs/".length))));
      return;
    }
    const entry = byName.get(path.slice(1));
    if (!entry) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: `${path.slice(1)} is not one of the packed tarballs` }));
      return;
    }
    const { manifest, bytes, tarball } = entry;
    const version = {
      ...manifest,
      _id: `${manifest.name}@${manifest.version}`,
      dist: {
        tarball: `${base}-/tarballs/${basename(tarball)}`,
        integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
        shasum: createHash("sha1").update(bytes).digest("hex"),
      },
    };
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        _id: manifest.name,
        name: manifest.name,
        "dist-tags": { latest: manifest.version },
        versions: { [manifest.version]: version },
      }),
    );
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}/`;
  return {
    url: base,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
