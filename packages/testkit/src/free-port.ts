import type { AddressInfo } from "node:net";
import { createServer } from "node:net";

/** A TCP port on `host` [127.0.0.1] that was free a moment ago (bound to port 0, then closed). */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, host, resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
