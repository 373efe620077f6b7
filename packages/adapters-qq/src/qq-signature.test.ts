import { describe, expect, it } from "vitest";
import { answerQqValidation, qqSign, qqSigningKeys, verifyQqSignature } from "./qq-signature.js";

describe("QQ Ed25519 signatures", () => {
  it("reproduces the documented op 13 validation example", () => {
    const { privateKey } = qqSigningKeys("DG5g3B4j9X2KOErG");
    expect(
      answerQqValidation(privateKey, { plain_token: "Arq0D5A61EgUu4OxUvOp", event_ts: "1725442341" }),
    ).toEqual({
      plain_token: "Arq0D5A61EgUu4OxUvOp",
      signature:
        "87befc99c42c651b3aac0278e71ada338433ae26fcb24307bdc5ad38c1adc2d01bcfcadc0842edac85e85205028a1132afe09280305f13aa6909ffc2d652c706",
    });
  });

  it("verifies timestamp + body and rejects any change", () => {
    const { privateKey, publicKey } = qqSigningKeys("a-secret-of-some-length");
    const body = '{"op":0,"t":"C2C_MESSAGE_CREATE","d":{}}';
    const signature = qqSign(privateKey, `1725442341${body}`);
    expect(verifyQqSignature(publicKey, "1725442341", body, signature)).toBe(true);
    expect(verifyQqSignature(publicKey, "1725442342", body, signature)).toBe(false);
    expect(verifyQqSignature(publicKey, "1725442341", `${body} `, signature)).toBe(false);
    expect(verifyQqSignature(qqSigningKeys("another-secret").publicKey, "1725442341", body, signature)).toBe(
      false,
    );
    expect(verifyQqSignature(publicKey, "1725442341", body, "zz")).toBe(false);
  });

  it("refuses to sign a validation whose token could be a JSON body (no signing oracle)", () => {
    const { privateKey } = qqSigningKeys("a-secret-of-some-length");
    expect(answerQqValidation(privateKey, { plain_token: '{"op":0}', event_ts: "1" })).toBeUndefined();
    expect(answerQqValidation(privateKey, { plain_token: "abc", event_ts: "1{" })).toBeUndefined();
  });
});
