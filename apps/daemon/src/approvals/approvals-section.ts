import type { ConfigSection } from "@downcity/core";
import { z } from "zod";

const bashPattern = z
  .string()
  .regex(/^Bash\(.+\)$/s, 'a pattern is written Bash(<prefix> *), e.g. "Bash(git status *)"')
  .describe("A skills-style Bash(…) pattern");

/** `approvals`: which shell commands wait for a human, which are refused and who may answer. */
export const approvalsSection = {
  name: "approvals",
  config: z.strictObject({
    mode: z
      .enum(["off", "ask", "deny"])
      .default("off")
      .describe(
        "off: commands run at once, as before approvals existed; ask: a command no allow pattern covers waits for an approver; deny: it is refused",
      ),
    allow: z.array(bashPattern).default([]).describe("Commands that run without asking"),
    deny: z
      .array(bashPattern)
      .default([])
      .describe("Commands always refused; deny wins over allow and approvals"),
    approvers: z
      .array(z.string().regex(/^[a-z][a-z0-9_-]*:.+$/, "an approver is <channel>:<userId>"))
      .default([])
      .describe("Who may answer in a chat, as <channel>:<userId>; the local CLI and console always may"),
    timeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(7 * 86_400_000)
      .default(1_800_000)
      .describe("How long a request waits before the command is denied"),
  }),
} satisfies ConfigSection;

/** The `approvals` section, validated. */
export type ApprovalsConfig = z.output<typeof approvalsSection.config>;
