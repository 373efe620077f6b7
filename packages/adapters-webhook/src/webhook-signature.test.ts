import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { signWebhookBody, verifyWebhookSignature } from "./webhook-signature.js";

describe("webhook signature", () => {
  const secret = "signature-secret-0123456789";
  const body = '{"eventId":"1","text":"héllo"}';

  it("matches the README's openssl recipe byte for byte", () => {
    const hex = execFileSync(
      "sh",
      ["-c", `printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //'`],
      {
        env: { ...process.env, BODY: body, SECRET: secret },
        encoding: "utf8",
      },
    ).trim();
    expect(signWebhookBody(secret, body)).toBe(`sha256=${hex}`);
    expect(signWebhookBody(secret, Buffer.from(body))).toBe(`sha256=${hex}`);
  });

  it("verifies only the exact body under the exact secret", () => {
    const header = signWebhookBody(secret, body);
    expect(verifyWebhookSignature(secret, body, header)).toBe(true);
    expect(
      verifyWebhookSignature(secret, Buffer.from(body), header.toUpperCase().replace("SHA256", "sha256")),
    ).toBe(true);
    expect(verifyWebhookSignature(secret, `${body} `, header)).toBe(false);
    expect(verifyWebhookSignature(`${secret}x`, body, header)).toBe(false);
    for (const bad of [
      undefined,
      "",
      "sha256=",
      header.slice(7),
      `sha1=${header.slice(7)}`,
      `${header}00`,
      [header, header],
    ])
      expect(verifyWebhookSignature(secret, body, bad)).toBe(false);
  });
});
