import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FakeSent } from "@downcity/core/test";
import type { FakeStoredFile } from "./fake-robot-message.js";

/** Credentials the fake accepts. */
export const fakeDingtalkClientId = "dingfakeclient000001";
export const fakeDingtalkSecret = "fakeDingtalkSecret-0123456789abcdef";

/** One robot send as the fake received it (the JSON body, msgParam parsed). */
export interface FakeRobotSend {
  path: string;
  body: Record<string, unknown>;
  msgParam: Record<string, string>;
}

/** The fake's OpenAPI: tokens, robot sends, downloads and uploads, with DingTalk's answers and errors. */
export interface FakeDingtalkOpenApi {
  handle(request: IncomingMessage, response: ServerResponse, body: Buffer, origin: string): Promise<boolean>;
  /** Keeps `file` for the download API; returns its download code. */
  storeFile(file: FakeStoredFile): string;
  sent(): FakeSent[];
  robotSends(): FakeRobotSend[];
  /** The next `count` robot sends (after `skip` that pass) answer 429 with `Retry-After`. */
  rateLimitNextSends(count: number, retryAfterMs: number, skip?: number): void;
  refuseNextFormatted(): void;
  /** Answers every token and gateway request as DingTalk does for a wrong Client Secret. */
  rejectCredentials(reject: boolean): void;
  credentialsRejected(): boolean;
  /** Makes every token issued so far invalid (401 on the robot API). */
  revokeTokens(): void;
  /** How often each download code was fetched. */
  downloads(code: string): number;
  tokensIssued(): number;
}

// Every answer helper returns true: the request was handled.
const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  return true as const;
};

const error = (response: ServerResponse, status: number, code: string, message: string, headers = {}) =>
  json(response, status, { requestid: randomUUID(), code, message }, headers);

/** Creates the fake OpenAPI handlers (`api.dingtalk.com` and the `oapi.dingtalk.com` upload, on one origin). */
export function createFakeDingtalkOpenApi(): FakeDingtalkOpenApi {
  const tokens = new Set<string>();
  const files = new Map<string, FakeStoredFile & { fetched: number }>();
  const uploads = new Map<string, { data: Uint8Array; mediaType: string; name: string }>();
  const sent: FakeSent[] = [];
  const robotSends: FakeRobotSend[] = [];
  let issued = 0;
  let rateLimit = { count: 0, retryAfterMs: 0, skip: 0 };
  let refuseFormatted = false;
  let rejecting = false;

  const tokenOf = (request: IncomingMessage, url: URL) =>
    (request.headers["x-acs-dingtalk-access-token"] as string | undefined) ??
    url.searchParams.get("access_token") ??
    "";

  const robotSend = (path: string, body: Record<string, unknown>, response: ServerResponse) => {
    if (rateLimit.count > 0 && rateLimit.skip > 0) rateLimit.skip -= 1;
    else if (rateLimit.count > 0) {
      rateLimit.count -= 1;
      return error(response, 429, "Throttling.Api", "API flow control", {
        "retry-after": String(rateLimit.retryAfterMs / 1000),
      });
    }
    let msgParam: Record<string, string>;
    try {
      msgParam = JSON.parse(String(body.msgParam));
    } catch {
      return error(response, 400, "invalidParameter.msgParam", "msgParam is not JSON");
    }
    const key = String(body.msgKey);
    if (key === "sampleMarkdown" && refuseFormatted) {
      refuseFormatted = false;
      return error(response, 400, "invalidParameter.msgParam", "msgParam of sampleMarkdown is invalid");
    }
    const direct = path.endsWith("batchSend");
    const chatId = direct
      ? String((body.userIds as string[] | undefined)?.[0] ?? "")
      : String(body.openConversationId ?? "");
    if (!chatId || body.robotCode !== fakeDingtalkClientId)
      return error(response, 400, "invalidParameter", "robotCode or receiver is missing or wrong");
    robotSends.push({ path, body, msgParam });
    if (key === "sampleText") sent.push({ chatId, text: msgParam.content ?? "", format: "plain" });
    else if (key === "sampleMarkdown") sent.push({ chatId, text: msgParam.text ?? "", format: "markdown" });
    else {
      const upload = uploads.get(
        key === "sampleImageMsg" ? (msgParam.photoURL ?? "") : (msgParam.mediaId ?? ""),
      );
      if (!upload) return error(response, 400, "invalidParameter.mediaId", "unknown media id");
      sent.push({
        chatId,
        text: "",
        files: [{ name: upload.name, mediaType: upload.mediaType, data: upload.data }],
      });
    }
    const processQueryKey = randomUUID();
    return json(
      response,
      200,
      direct
        ? { processQueryKey, invalidStaffIdList: [], flowControlledStaffIdList: [] }
        : { processQueryKey },
    );
  };

  const upload = async (request: IncomingMessage, body: Buffer, response: ServerResponse) => {
    const form = await new Response(new Uint8Array(body), {
      headers: { "content-type": String(request.headers["content-type"] ?? "") },
    }).formData();
    const media = form.get("media");
    if (!(media instanceof Blob))
      return json(response, 200, { errcode: 40004, errmsg: "不合法的媒体文件类型" });
    const mediaId = `@lA${randomUUID().replaceAll("-", "")}`;
    const name = media instanceof File ? media.name : "upload";
    uploads.set(mediaId, { data: new Uint8Array(await media.arrayBuffer()), mediaType: media.type, name });
    return json(response, 200, {
      errcode: 0,
      errmsg: "ok",
      media_id: mediaId,
      type: "file",
      created_at: Date.now(),
    });
  };

  return {
    async handle(request, response, raw, origin) {
      const url = new URL(request.url ?? "/", "http://fake");
      const body = (() => {
        try {
          return raw.length ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : {};
        } catch {
          return {};
        }
      })();
      if (request.method === "POST" && url.pathname === "/v1.0/oauth2/accessToken") {
        if (rejecting || body.appKey !== fakeDingtalkClientId || body.appSecret !== fakeDingtalkSecret)
          return error(response, 400, "invalidClientIdOrSecret", "无效的clientId或者clientSecret");
        const accessToken = `dttok-${randomUUID()}`;
        tokens.add(accessToken);
        issued += 1;
        return json(response, 200, { accessToken, expireIn: 7200 });
      }
      if (request.method === "GET" && url.pathname.startsWith("/files/")) {
        const file = files.get(decodeURIComponent(url.pathname.slice("/files/".length)));
        if (!file) return error(response, 404, "resource.not.found", "no such file");
        file.fetched += 1;
        response.writeHead(200, { "content-type": file.mediaType }).end(Buffer.from(file.data));
        return true;
      }
      const known = ["/v1.0/robot/", "/media/upload"].some((prefix) => url.pathname.startsWith(prefix));
      if (!known || request.method !== "POST") return false;
      if (!tokens.has(tokenOf(request, url)))
        return error(response, 401, "InvalidAuthentication", "不合法的access_token");
      if (url.pathname === "/media/upload") return await upload(request, raw, response);
      if (url.pathname === "/v1.0/robot/messageFiles/download") {
        const code = String(body.downloadCode ?? "");
        if (!files.has(code) || body.robotCode !== fakeDingtalkClientId)
          return error(response, 400, "invalidParameter.downloadCode", "downloadCode is invalid");
        return json(response, 200, { downloadUrl: `${origin}/files/${encodeURIComponent(code)}` });
      }
      if (
        url.pathname === "/v1.0/robot/oToMessages/batchSend" ||
        url.pathname === "/v1.0/robot/groupMessages/send"
      )
        return robotSend(url.pathname, body, response);
      return error(response, 404, "resource.not.found", "no such API");
    },
    storeFile(file) {
      const code = `dlcode-${randomUUID()}`;
      files.set(code, { ...file, fetched: 0 });
      return code;
    },
    sent: () => [...sent],
    robotSends: () => [...robotSends],
    rateLimitNextSends(count, retryAfterMs, skip = 0) {
      rateLimit = { count, retryAfterMs, skip };
    },
    refuseNextFormatted() {
      refuseFormatted = true;
    },
    rejectCredentials(reject) {
      rejecting = reject;
    },
    credentialsRejected: () => rejecting,
    revokeTokens: () => tokens.clear(),
    downloads: (code) => files.get(code)?.fetched ?? 0,
    tokensIssued: () => issued,
  };
}
