import { until } from "@downcity/testkit";
import { afterEach, expect, test } from "vitest";
import { type FakeWeixinPlatform, startFakeWeixinPlatform } from "./test/fake-weixin-platform.js";
import { requestWeixinQrCode, type WeixinBindingStatus, waitForWeixinBinding } from "./weixin-login.js";

let fake: FakeWeixinPlatform;
afterEach(async () => {
  await fake?.close();
});

test("a QR binding: the code, the scan, the confirmation with the bot token and the binding's host", async () => {
  fake = await startFakeWeixinPlatform();
  const code = await requestWeixinQrCode(fake.baseUrl);
  expect(code.content).toContain(code.qrcode);
  const statuses: WeixinBindingStatus[] = [];
  const waiting = waitForWeixinBinding(code.qrcode, {
    baseUrl: fake.baseUrl,
    intervalMs: 20,
    onStatus: (status) => statuses.push(status),
  });
  await until(() => statuses.includes("wait") || undefined, "the first status");
  fake.login.scan(code.qrcode);
  await until(() => statuses.includes("scaned") || undefined, "the scan");
  fake.login.confirm(code.qrcode, "freshtoken-0123456789abcdef@im.bot", "wxid_owner");
  expect(await waiting).toEqual({
    status: "confirmed",
    botToken: "freshtoken-0123456789abcdef@im.bot",
    baseUrl: fake.baseUrl,
    botId: "fakebot@im.bot",
    userId: "wxid_owner",
  });
});

test("an expired code ends the wait as expired; a wait past its deadline as a timeout", async () => {
  fake = await startFakeWeixinPlatform();
  const code = await requestWeixinQrCode(fake.baseUrl);
  const waiting = waitForWeixinBinding(code.qrcode, { baseUrl: fake.baseUrl, intervalMs: 20 });
  fake.login.expire(code.qrcode);
  expect(await waiting).toEqual({ status: "expired" });
  const other = await requestWeixinQrCode(fake.baseUrl);
  expect(
    await waitForWeixinBinding(other.qrcode, { baseUrl: fake.baseUrl, intervalMs: 20, timeoutMs: 1500 }),
  ).toEqual({
    status: "timeout",
  });
});
