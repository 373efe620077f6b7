import type { DowncityConfig } from "@downcity/core";

/**
 * Who answers approvals when `approvals.approvers` is empty: the users the operator put in a
 * channel's `access.allow` by hand (`<channel>:<userId>`); never users who only paired.
 */
export function defaultApprovers(config: DowncityConfig): string[] {
  const approvers: string[] = [];
  for (const [channel, settings] of Object.entries(config.channels ?? {})) {
    const allow = (settings as { access?: { allow?: unknown } }).access?.allow;
    if (Array.isArray(allow))
      for (const user of allow) if (typeof user === "string") approvers.push(`${channel}:${user}`);
  }
  return approvers;
}
