import { DingtalkApiError } from "./dingtalk-api-error.js";
import { postJson } from "./dingtalk-http.js";
import type { DingtalkTokenSource } from "./dingtalk-token-source.js";

/** What a robot send needs: the API root, the robot and the app's tokens. */
export interface RobotSendSettings {
  apiBase: string;
  robotCode: string;
  tokens: DingtalkTokenSource;
}

/** One robot message: a template key (sampleText, sampleMarkdown, sampleImageMsg, sampleFile) and its parameters. */
export interface RobotMessagePart {
  msgKey: "sampleText" | "sampleMarkdown" | "sampleImageMsg" | "sampleFile";
  msgParam: Record<string, string>;
}

interface BatchSendAnswer {
  processQueryKey?: string;
  invalidStaffIdList?: string[];
  flowControlledStaffIdList?: string[];
}

/**
 * Sends one robot message: to a user with `POST /v1.0/robot/oToMessages/batchSend {robotCode, userIds, msgKey,
 * msgParam}`, to a group with `POST /v1.0/robot/groupMessages/send {robotCode, openConversationId, msgKey,
 * msgParam}`. Returns the `processQueryKey`. A user DingTalk lists as invalid, or as flow-controlled, is an error
 * (throttled in the second case); an expired token is fetched anew once.
 */
export async function postRobotMessage(
  settings: RobotSendSettings,
  target: { chatId: string; chatType: "direct" | "group" },
  part: RobotMessagePart,
): Promise<string | undefined> {
  const direct = target.chatType === "direct";
  const path = direct ? "/v1.0/robot/oToMessages/batchSend" : "/v1.0/robot/groupMessages/send";
  const body = {
    robotCode: settings.robotCode,
    ...(direct ? { userIds: [target.chatId] } : { openConversationId: target.chatId }),
    msgKey: part.msgKey,
    msgParam: JSON.stringify(part.msgParam),
  };
  const post = async () =>
    postJson<BatchSendAnswer>(`DingTalk ${path}`, `${settings.apiBase}${path}`, body, {
      "x-acs-dingtalk-access-token": await settings.tokens.token(),
    });
  let answer: BatchSendAnswer;
  try {
    answer = await post();
  } catch (error) {
    if (!DingtalkApiError.isInstance(error) || error.status !== 401) throw error;
    settings.tokens.invalidate();
    answer = await post();
  }
  if (answer.invalidStaffIdList?.includes(target.chatId))
    throw new DingtalkApiError(200, "invalidStaffId", `DingTalk does not know the user ${target.chatId}`);
  if (answer.flowControlledStaffIdList?.includes(target.chatId))
    throw new DingtalkApiError(
      200,
      "flowControlled",
      "DingTalk flow-controlled the message to this user",
      1000,
    );
  return answer.processQueryKey;
}
