/** The updates the adapter asks Telegram for: new messages and presses of the buttons it sent. */
export const telegramAllowedUpdates: Array<"message" | "callback_query"> = ["message", "callback_query"];
