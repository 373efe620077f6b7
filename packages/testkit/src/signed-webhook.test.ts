import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "./free-port.js";
import { postSigned, type SignedReceiver, signBody, startSignedReceiver } from "./signed-webhook.js";

describe("signed webhook posts", () => {
  let receiver: SignedReceiver<{ n: number }> | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });
  const portOf = (url: string) => Number(new URL(url).port);

  it("signs as the webhook channel does", () => {
    expect(signBody("s", "{}")).toBe(
      "sha256=143ca8d517ba1b181025d732b1cf275d90104fca57bb02a565542978aa18c4b6",
    );
    expect(signBody("s", Buffer.from("{}"))).toBe(signBody("s", "{}"));
    expect(signBody("s", "{}")).not.toBe(signBody("t", "{}"));
  });

  it("records correctly signed bodies in order and answers 401 to a wrong signature", async () => {
    const seen: number[] = [];
    receiver = await startSignedReceiver<{ n: number }>({
      secret: "right",
      onReceive: (body) => seen.push(body.n),
    });
    const port = portOf(receiver.url);
    expect(await postSigned(port, '{"n":1}', "right")).toEqual({ status: 200, text: "{}" });
    expect(await postSigned(port, '{"n":2}', "wrong")).toEqual({ status: 401, text: "" });
    expect(await postSigned(port, '{"n":3}', "right")).toMatchObject({ status: 200 });
    expect(receiver.received.map(({ n, order }) => [n, order])).toEqual([
      [1, 0],
      [3, 1],
    ]);
    expect(seen).toEqual([1, 3]);
    expect(receiver.badSignatures).toEqual(['{"n":2}']);
  });

  it("answers 503 and records nothing while it refuses", async () => {
    let refusing = true;
    receiver = await startSignedReceiver<{ n: number }>({ secret: "k", refuse: () => refusing });
    const port = portOf(receiver.url);
    expect(await postSigned(port, '{"n":1}', "k")).toMatchObject({ status: 503 });
    refusing = false;
    expect(await postSigned(port, '{"n":1}', "k")).toMatchObject({ status: 200 });
    expect(receiver.received).toHaveLength(1);
  });

  it("gives undefined when nothing listens", async () => {
    expect(await postSigned(await freePort(), "{}", "k")).toBeUndefined();
  });
});
