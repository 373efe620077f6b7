import { describe, expect, it } from "vitest";
import { whileRunWaits, withRunHold } from "../run/run-hold.js";
import { currentModelPurpose, withModelPurpose } from "./model-purpose.js";
import { currentRequestContext, runWithRequestContext } from "./request-context.js";

describe("one async frame for request, purpose and hold", () => {
  it("keeps the outer entries when an inner call sets another, across awaits", async () => {
    const request = { contextId: "c", requestId: "r" };
    let released = 0;
    const seen = await runWithRequestContext(request, () =>
      withModelPurpose({ purpose: "step" }, () =>
        withRunHold(
          () => () => released++,
          async () => {
            await new Promise((resolve) => setImmediate(resolve));
            await whileRunWaits(async () => undefined);
            return { request: currentRequestContext(), purpose: currentModelPurpose() };
          },
        ),
      ),
    );
    expect(seen).toEqual({ request, purpose: { purpose: "step" } });
    expect(released).toBe(1);
    expect(currentRequestContext()).toBeUndefined();
    expect(currentModelPurpose()).toBeUndefined();
  });
});
