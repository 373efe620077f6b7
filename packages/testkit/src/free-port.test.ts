import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./free-port.js";

const listen = (server: Server, port: number) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });

describe("freePort", () => {
  it("gives a loopback port another server can bind", async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await listen(server, port);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.runIf(process.platform === "linux")(
    "picks below the ports outgoing connections get, so a restarted server finds its port free",
    async () => {
      const start = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0]);
      const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
      for (const port of ports) {
        expect(port).toBeGreaterThanOrEqual(10_000);
        expect(port).toBeLessThan(start);
      }
    },
  );

  it("rejects for a host it cannot bind", async () => {
    await expect(freePort("203.0.113.1")).rejects.toThrow(/EADDRNOTAVAIL/);
  });
});
