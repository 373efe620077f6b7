import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { weixinChannelStateDir, writeWeixinCredentials } from "@downcity/adapters-weixin";
import {
  type FakeWeixinPlatform,
  fakeWeixinToken,
  startFakeWeixinPlatform,
} from "@downcity/adapters-weixin/test";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { captureCliIo } from "../../test/capture-cli-io.js";
import { checkWeixinChannels } from "./check-weixin-channels.js";

describe("doctor's weixin line: the token `channels login` stored", () => {
  let dir: string;
  let fake: FakeWeixinPlatform;
  const stateDir = () => weixinChannelStateDir(dir, "wechat");
  const file = () => join(stateDir(), "weixin-credentials.json");
  const check = (offline: boolean) => checkWeixinChannels(captureCliIo({}, dir).io, dir, { offline });
  const store = (botToken: string) =>
    writeWeixinCredentials(stateDir(), {
      botToken,
      baseUrl: fake.baseUrl,
      boundAt: new Date().toISOString(),
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-doctor-weixin-"));
    fake = await startFakeWeixinPlatform();
    const channels = { wechat: { adapter: "@downcity/adapters-weixin", baseUrl: fake.baseUrl } };
    await writeFile(join(dir, "downcity.json"), JSON.stringify({ channels }));
  });
  afterEach(async () => {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("no WeChat channel: no line", async () => {
    await writeFile(join(dir, "downcity.json"), JSON.stringify({ channels: {} }));
    expect(await check(true)).toBeUndefined();
  });

  test("missing: fails with the login command as the fix", async () => {
    const line = await check(true);
    expect(line).toMatchObject({ name: "weixin", status: "fail", fix: "downcity channels login wechat" });
    expect(line?.detail).toContain("no WeChat bot is bound");
  });

  test("bad shape: names the field, never the value", async () => {
    await mkdir(stateDir(), { recursive: true });
    await writeFile(file(), JSON.stringify({ botToken: "short token", boundAt: "x" }), { mode: 0o600 });
    const line = await check(true);
    expect(line?.status).toBe("fail");
    expect(line?.detail).toContain("botToken");
    expect(line?.detail).not.toContain("short token");
    expect(line?.fix).toContain("downcity channels login wechat");
    await writeFile(file(), "{not json", { mode: 0o600 });
    expect((await check(true))?.detail).toContain("not JSON");
  });

  test("wrong mode: fails with the chmod that fixes it", async () => {
    await store(fakeWeixinToken);
    await chmod(file(), 0o644);
    const line = await check(true);
    expect(line?.status).toBe("fail");
    expect(line?.detail).toContain("mode 0644");
    expect(line?.fix).toBe(`chmod 600 ${file()}`);
  });

  test("offline: a good file passes unverified; online: iLink accepts it, then refuses it once expired", async () => {
    await store(fakeWeixinToken);
    expect(await check(true)).toMatchObject({ status: "ok" });
    expect((await check(true))?.detail).toContain("not verified: --offline");
    const online = await check(false);
    expect(online).toMatchObject({ status: "ok" });
    expect(online?.detail).toContain("accepted by iLink");
    fake.expireToken();
    const expired = await check(false);
    expect(expired).toMatchObject({ status: "fail", fix: "downcity channels login wechat" });
    expect(expired?.detail).toContain("expired");
    expect(expired?.detail).not.toContain(fakeWeixinToken);
  });

  test("online with iLink unreachable: a warning naming the base URL", async () => {
    await store(fakeWeixinToken);
    await fake.close();
    const line = await check(false);
    expect(line?.status).toBe("warn");
    expect(line?.fix).toContain(fake.baseUrl);
  });
});
