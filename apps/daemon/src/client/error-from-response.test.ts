import { DowncityError, downcityErrorCodes } from "@downcity/core/primitives";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { registerErrorHandler } from "../plugins/error-handler.js";
import { errorFromResponse } from "./error-from-response.js";

describe("errorFromResponse", () => {
  it("gives the client every code the daemon's error handler sends, with its field", async () => {
    const app = Fastify();
    registerErrorHandler(app, { debug() {}, info() {}, warn() {}, error() {} });
    app.get("/fail/:code", async (request) => {
      const { code } = request.params as { code: (typeof downcityErrorCodes)[number] };
      throw new DowncityError(code, `failed with ${code}`, { field: "x" });
    });
    for (const code of downcityErrorCodes) {
      const response = await app.inject({ method: "GET", url: `/fail/${code}` });
      expect(response.statusCode, code).toBeGreaterThanOrEqual(400);
      const error = errorFromResponse({ status: response.statusCode, text: response.body });
      expect(error.toJSON(), code).toEqual({ code, message: `failed with ${code}`, field: "x" });
    }
    await app.close();
  });

  it("turns a code it does not know, or a body that is not JSON, into INTERNAL", () => {
    expect(
      errorFromResponse({ status: 500, text: '{"error":{"code":"ACCESS_DENIED","message":"no"}}' }).code,
    ).toBe("INTERNAL");
    expect(errorFromResponse({ status: 502, text: "<html>bad gateway</html>" }).toJSON()).toEqual({
      code: "INTERNAL",
      message: "The daemon answered HTTP 502",
    });
  });
});
