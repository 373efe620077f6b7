import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processStartTime } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { writeDaemonMeta } from "./daemon-meta.js";
import { daemonPaths } from "./daemon-paths.js";
import { daemonStatus } from "./daemon-status.js";

describe("daemonStatus", () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("cleans a pid file of a dead process", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-status-"));
    await writeDaemonMeta(dir, {
      pid: 2 ** 22 - 3,
      host: "127.0.0.1",
      port: 1234,
      startedAt: new Date().toISOString(),
      version: "0.0.0",
    });
    expect(await daemonStatus({ rootDir: dir })).toMatchObject({ running: false, staleCleaned: true });
    expect(existsSync(daemonPaths(dir).pidFile)).toBe(false);
    expect(existsSync(daemonPaths(dir).metaFile)).toBe(false);
  });

  it("does not trust a live but recycled pid (start time differs)", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-status-"));
    await writeDaemonMeta(dir, {
      pid: process.pid,
      host: "127.0.0.1",
      port: 1234,
      startedAt: new Date().toISOString(),
      version: "0.0.0",
      pidStartTime: "1",
    });
    expect(await daemonStatus({ rootDir: dir })).toMatchObject({ running: false, staleCleaned: true });
  });

  it("reports a live daemon and a garbage pid file as stale", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-status-"));
    await writeDaemonMeta(dir, {
      pid: process.pid,
      host: "127.0.0.1",
      port: 1234,
      startedAt: "2020-01-01T00:00:00.000Z",
      version: "1.2.3",
      pidStartTime: processStartTime(process.pid),
    });
    expect(await daemonStatus({ rootDir: dir })).toEqual({
      running: true,
      pid: process.pid,
      host: "127.0.0.1",
      port: 1234,
      startedAt: "2020-01-01T00:00:00.000Z",
      version: "1.2.3",
    });
    await rm(daemonPaths(dir).metaFile);
    await mkdir(daemonPaths(dir).debugDir, { recursive: true });
    await writeFile(daemonPaths(dir).pidFile, "garbage");
    expect(await daemonStatus({ rootDir: dir })).toMatchObject({ running: false, staleCleaned: true });
  });
});

describe("daemonStatus of leftovers", () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("cleans a pid file without daemon.json even when its pid is alive (reused)", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-status-"));
    await mkdir(daemonPaths(dir).debugDir, { recursive: true });
    await writeFile(daemonPaths(dir).pidFile, `${process.pid}\n`);
    expect(await daemonStatus({ rootDir: dir })).toMatchObject({
      running: false,
      pid: process.pid,
      staleCleaned: true,
    });
    expect(existsSync(daemonPaths(dir).pidFile)).toBe(false);
  });
});
