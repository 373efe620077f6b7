import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, test, vi } from "vitest";
import { createProcessTable } from "./process-table.js";
import { findSessionProcesses } from "./process-tree.js";

describe("process tables", () => {
  test("auto picks /proc on Linux", () => {
    expect(createProcessTable().source).toBe("procfs");
  });

  test("ps sees the same tree as /proc: pid, parent, group, liveness", async () => {
    // A group leader with a child: bash (detached = own group) running sleep.
    const child = spawn("/bin/bash", ["-c", "sleep 30 & echo $!; wait"], { detached: true });
    try {
      const [line] = (await once(child.stdout, "data")) as [Buffer];
      const grandchild = Number(line.toString().trim());
      const procfs = createProcessTable("procfs");
      const ps = createProcessTable("ps");
      for (const table of [procfs, ps]) {
        const found = table.read([child.pid ?? 0, grandchild, 999999999]);
        expect(found.size).toBe(2);
        expect(found.get(grandchild)).toMatchObject({ ppid: child.pid, pgid: child.pid });
        expect(found.get(grandchild)?.state).not.toBe("Z");
        expect(found.get(child.pid ?? 0)).toMatchObject({ pgid: child.pid });
        const listed = table.list();
        expect(listed.some((info) => info.pid === grandchild)).toBe(true);
        expect(listed.some((info) => info.pid === process.pid)).toBe(false);
      }
      // Start times are stable between reads (what makes an identity).
      expect(ps.read([grandchild]).get(grandchild)?.startTime).toMatch(
        /\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4}/,
      );
      expect(ps.read([grandchild]).get(grandchild)?.startTime).toBe(
        ps.read([grandchild]).get(grandchild)?.startTime,
      );
      expect(procfs.hasEnvironment(grandchild, Buffer.from("PATH="))).toBe(true);
      expect(ps.hasEnvironment(grandchild, Buffer.from("PATH="))).toBe(false);
    } finally {
      process.kill(-(child.pid ?? 0), "SIGKILL");
    }
  });

  test("an empty environment (as between the images of an execve) is 'cannot tell', and makes a scan uncertain", async () => {
    const child = spawn("env", ["-i", "/bin/sleep", "30"]);
    try {
      await once(child, "spawn");
      const procfs = createProcessTable("procfs");
      // Poll until env has exec'd sleep with its empty environment.
      await vi.waitFor(
        () => expect(procfs.hasEnvironment(child.pid ?? 0, Buffer.from("X="))).toBeUndefined(),
        {
          timeout: 5000,
          interval: 10,
        },
      );
      expect(procfs.hasEnvironment(2, Buffer.from("X="))).toBe(false);
      const scan = findSessionProcesses(procfs, undefined, "DC_CTX_SHELL_ID=sh_nobodyhasthis");
      expect(scan).toMatchObject({ processes: [], uncertain: true });
    } finally {
      child.kill("SIGKILL");
    }
  });
});
