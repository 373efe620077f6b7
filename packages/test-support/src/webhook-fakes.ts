import { freePort } from "@downcity/testkit";

/** Fakes that deliver to an adapter's webhook listener, each on a port of its own. */
export interface WebhookFakes<Fake extends object> {
  /** Picks a free port and starts a fake delivering to `http://127.0.0.1:<port><path>`. */
  createFake(): Promise<Fake>;
  /** The `listen` option (`127.0.0.1:<port>`) of the adapter `fake` delivers to. */
  listen(fake: Fake): string;
}

/**
 * For a conformance suite in webhook mode, where the fake must know the adapter's URL before the adapter
 * exists: `start` is given the URL to deliver to; `listen(fake)` gives the adapter the matching address.
 */
export function webhookFakes<Fake extends object>(
  path: string,
  start: (url: string) => Promise<Fake>,
): WebhookFakes<Fake> {
  const ports = new WeakMap<Fake, number>();
  return {
    async createFake() {
      const port = await freePort();
      const fake = await start(`http://127.0.0.1:${port}${path}`);
      ports.set(fake, port);
      return fake;
    },
    listen(fake) {
      const port = ports.get(fake);
      if (port === undefined) throw new Error("this fake was not made by createFake");
      return `127.0.0.1:${port}`;
    },
  };
}
