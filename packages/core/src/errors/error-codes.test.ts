import { describe, expect, it } from "vitest";
import { downcityErrorCodes, httpStatusByCode, isDowncityErrorCode } from "./error-codes.js";

describe("downcityErrorCodes", () => {
  it("gives every code an HTTP error status, and the table no code that is not in the list", () => {
    for (const code of downcityErrorCodes) {
      const status: number | undefined = httpStatusByCode[code];
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
    }
    expect(Object.keys(httpStatusByCode).sort()).toEqual([...downcityErrorCodes].sort());
  });

  it("recognises its own codes only", () => {
    expect(isDowncityErrorCode("CHANNEL_SEND_FAILED")).toBe(true);
    expect(isDowncityErrorCode("ACCESS_DENIED")).toBe(false);
    expect(isDowncityErrorCode(404)).toBe(false);
  });
});
