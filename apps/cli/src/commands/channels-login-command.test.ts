import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeWeixinPlatform, startFakeWeixinPlatform } from "@downcity/adapters-weixin/test";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { captureCliIo } from "../../test/capture-cli-io.js";
import { runCli } from "../run-cli.js";

describe("downcity channels login", () => {
  let dir: string;
  let fake: FakeWeixinPlatform;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "downcity-login-"));
    fake = await startFakeWeixinPlatform();
    const channels = { wechat: { adapter: "@downcity/adapters-weixin", baseUrl: fake.baseUrl } };
    await writeFile(join(dir, "downcity.json"), JSON.stringify({ channels }));
  });
  afterEach(async () => {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("prints the QR code, waits for the scan and stores the token with mode 0600", async () => {
    const { io, out } = captureCliIo({}, dir);
    const running = runCli({ argv: ["channels", "login", "wechat"], io });
    const code = await until(() => fake.login.codes()[0], "the QR code request");
    // The terminal shows the code as Unicode half blocks, and the link it encodes.
    await until(() => out.stdout.includes(code) || undefined, "the printed link");
    expect(out.stdout).toMatch(/[▀▄█]/);
    fake.login.scan(code);
    await until(() => out.stdout.includes("Scanned") || undefined, "the scanned notice");
    fake.login.confirm(code, "boundtoken-0123456789abcdef@im.bot", "wxid_owner@im.wechat");
    expect(await running).toBe(0);

    const file = join(dir, ".downcity", "channels", "wechat", "state", "weixin-credentials.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, "utf8")) as Record<string, string>;
    expect(stored).toMatchObject({
      botToken: "boundtoken-0123456789abcdef@im.bot",
      baseUrl: fake.baseUrl,
      userId: "wxid_owner@im.wechat",
    });
    // The token is never printed; re-binding is explained.
    expect(out.stdout).not.toContain("boundtoken-0123456789abcdef");
    expect(out.stdout).toContain("downcity channels login wechat");
  }, 60_000);

  test("an expired code is replaced by a new one; a channel of another kind is refused", async () => {
    const { io, out } = captureCliIo({}, dir);
    const running = runCli({ argv: ["channels", "login", "wechat", "--json"], io });
    const first = await until(() => fake.login.codes()[0], "the first code");
    fake.login.expire(first);
    const second = await until(() => fake.login.codes()[1], "a second code");
    fake.login.confirm(second, "secondtoken-0123456789abcdef@im.bot");
    expect(await running).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ channel: "wechat", bound: true });

    const other = captureCliIo({}, dir);
    expect(await runCli({ argv: ["channels", "login", "nope", "--json"], io: other.io })).toBe(1);
    expect(other.out.stderr).toContain('No channel \\"nope\\"');
  }, 60_000);
});
