import { describe, expect, it } from "vitest";
import { safeFileName } from "./safe-file-name.js";
import { sniffMediaType } from "./sniff-media-type.js";

describe("sniffMediaType", () => {
  it("reads the type from the bytes, not the claim", () => {
    expect(sniffMediaType(Buffer.from("ffd8ffe000104a464946", "hex"), "text/plain")).toBe("image/jpeg");
    expect(sniffMediaType(Buffer.from("RIFF\0\0\0\0WEBPVP8 "), undefined)).toBe("image/webp");
    expect(sniffMediaType(Buffer.from("OggS\0\u0002"), "audio/x-opus")).toBe("audio/ogg");
    expect(sniffMediaType(Buffer.from("%PDF-1.7\n"), undefined)).toBe("application/pdf");
  });

  it("keeps a claimed text type for text, and never lets unknown bytes pass as an image", () => {
    expect(sniffMediaType(Buffer.from('{"a":1}'), "application/json")).toBe("application/json");
    expect(sniffMediaType(Buffer.from("hello"), "image/png")).toBe("text/plain");
    expect(sniffMediaType(Buffer.from([0, 1, 2, 3, 0xfe]), "image/png")).toBe("application/octet-stream");
  });
});

describe("safeFileName", () => {
  it("keeps one harmless path segment", () => {
    expect(safeFileName("..\\..\\a/b/.hidden", "file")).toBe("hidden");
    expect(safeFileName("a\u0000b:c.txt", "file")).toBe("a_b_c.txt");
    expect(safeFileName(undefined, "voice", "audio/ogg")).toBe("voice.ogg");
    expect(Buffer.byteLength(safeFileName("é".repeat(200), "file"))).toBeLessThanOrEqual(100);
  });
});
