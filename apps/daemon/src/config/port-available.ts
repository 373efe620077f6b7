import { createServer } from "node:net";

/** Whether `host:port` can be bound right now; otherwise the errno code (EADDRINUSE, EACCES, ...). */
export function probePort(
  host: string,
  port: number,
): Promise<{ free: true } | { free: false; code: string }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      resolve({ free: false, code: error.code ?? "EUNKNOWN" }),
    );
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => resolve({ free: true }));
    });
  });
}

/** The `{ host, port }` a channel's options ask to listen on (`listen: {host, port}`, a port, or "host:port"). */
export function listenAddressOf(
  options: Record<string, unknown>,
): { host: string; port: number; field: string } | undefined {
  if (options.mode === "polling") return undefined;
  const listen = options.listen;
  if (typeof listen === "number") return { host: "127.0.0.1", port: listen, field: "listen" };
  if (typeof listen === "string") {
    const match = /^\[?([^\]]*?)\]?:(\d{1,5})$/.exec(listen);
    return match ? { host: match[1] as string, port: Number(match[2]), field: "listen" } : undefined;
  }
  if (typeof listen === "object" && listen !== null) {
    const { host, port } = listen as { host?: unknown; port?: unknown };
    if (typeof port === "number")
      return { host: typeof host === "string" ? host : "127.0.0.1", port, field: "listen.port" };
  }
  return undefined;
}
