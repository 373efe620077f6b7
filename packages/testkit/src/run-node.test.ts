import { describe, expect, it } from "vitest";
import { runNode } from "./run-node.js";

describe("runNode", () => {
  it("passes arguments, stdin and env, and collects output and the exit code", async () => {
    const script = "-e";
    const run = await runNode(
      script,
      [
        "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{console.log(s+process.argv[1]+process.env.X);console.error('e');process.exit(3)})",
        "arg",
      ],
      { input: "in-", env: { X: "-x" } },
    );
    expect(run).toEqual({ code: 3, stdout: "in-arg-x\n", stderr: "e\n" });
  });

  it("drops an inherited DC_CTX_ variable unless it is given", async () => {
    process.env.DC_CTX_TEST_RUN_NODE = "inherited";
    try {
      const print = ["-e", "console.log(process.env.DC_CTX_TEST_RUN_NODE ?? 'none')"];
      expect((await runNode(print[0] as string, [print[1] as string])).stdout).toBe("none\n");
      const given = await runNode(print[0] as string, [print[1] as string], {
        env: { DC_CTX_TEST_RUN_NODE: "given" },
      });
      expect(given.stdout).toBe("given\n");
    } finally {
      delete process.env.DC_CTX_TEST_RUN_NODE;
    }
  });

  it("kills a run that outlives its timeout", async () => {
    const run = await runNode("-e", ["setInterval(() => {}, 1000)"], { timeoutMs: 200 });
    expect(run.code).toBeNull();
    expect(run.stderr).toMatch(/killed after \d+ ms without exiting/);
  });
});
