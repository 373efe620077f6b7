import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";

/** The first port the system hands out for outgoing connections (and for binds to port 0). */
function ephemeralPortStart(): number {
  try {
    // Linux: "32768	60999".
    const start = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
    );
    if (Number.isInteger(start) && start > 0) return start;
  } catch {
    // Not Linux: the IANA range, which macOS and Windows use.
  }
  return 49152;
}

/** Binds `port` (0: any) on `host` and closes it again; resolves with the port, or rejects. */
async function probe(port: number, host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

const lowestPort = 10_000;

/**
 * A TCP port on `host` [127.0.0.1] that was free a moment ago, picked below the system's ephemeral
 * range: a server that a test stops and starts again on its port (a daemon's channel listener) must
 * not find it taken by one of the outgoing connections the tests around it make meanwhile, which
 * the system gives ports from that range. Falls back to a port the system picks (port 0) when that
 * range leaves no room below it or no random pick is free.
 */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const end = ephemeralPortStart();
  for (let attempt = 0; end > lowestPort && attempt < 20; attempt++) {
    const port = lowestPort + Math.floor(Math.random() * (end - lowestPort));
    try {
      return await probe(port, host);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    }
  }
  return probe(0, host);
}
