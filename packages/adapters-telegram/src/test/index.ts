/**
 * `@downcity/adapters-telegram/test`: a fake Telegram Bot API server on 127.0.0.1 speaking the real
 * wire format (updates, sends, files, multipart uploads, edits, button presses, injected failures),
 * for end-to-end tests of a bot without Telegram. Loads no test framework.
 */
export {
  type FakeFailure,
  type FakeFile,
  type FakeMessageInput,
  type FakeSentMessage,
  type FakeTelegramCall,
  type FakeTelegramServer,
  startFakeTelegramServer,
} from "./fake-telegram-server.js";
