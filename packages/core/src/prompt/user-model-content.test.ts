import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { createScriptedModel } from "../test/scripted-model.js";

const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");
const imagePath = ".downcity/media/tg%3A1/abc-photo.png";
const image = {
  kind: "image" as const,
  mediaType: "image/png",
  name: "photo.png",
  size: png.length,
  path: imagePath,
};
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-user-content-"));
  await mkdir(join(root, ".downcity/media/tg%3A1"), { recursive: true });
  await writeFile(join(root, imagePath), png);
  await writeFile(join(root, ".downcity/media/tg%3A1/def-notes.txt"), "remember the milk");
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("what the model reads of a user turn with attachments", () => {
  it("gets an image as an image part and a small text file inline; history keeps the path, not the bytes", async () => {
    const scripted = createScriptedModel(["nice"]);
    const runtime = createAgentRuntime({ rootDir: root, model: scripted.model });
    const notes = { kind: "file" as const, mediaType: "text/plain", name: "notes.txt", size: 17 };
    await runtime.send({
      contextId: "tg:1",
      text: "",
      attachments: [image, { ...notes, path: ".downcity/media/tg%3A1/def-notes.txt" }],
    });
    const user = scripted.calls[0]?.messages.at(-1);
    expect(user?.role).toBe("user");
    expect(user?.text).toContain(`[file image/png ${png.length} bytes]`);
    expect(user?.text).toContain("remember the milk");
    const [stored] = await runtime.history("tg:1").read();
    expect(stored?.parts).toContainEqual(expect.objectContaining({ type: "file", url: imagePath }));
    expect(JSON.stringify(stored)).not.toContain(png.toString("base64"));
    await runtime.close();
  });

  it("gives a note with the path when the model takes no images, and names the speaker in a group", async () => {
    const scripted = createScriptedModel(["ok"]);
    const runtime = createAgentRuntime({ rootDir: root, model: scripted.model, vision: false });
    await runtime.send({
      contextId: "tg:1",
      text: "look",
      chatType: "group",
      displayName: "Ada",
      quotedText: "the earlier plan",
      attachments: [image, { kind: "location", note: "[Location: 1, 2]" }],
    });
    const text = scripted.calls[0]?.messages.at(-1)?.text ?? "";
    expect(text).toContain('[Ada]: [Replying to: "the earlier plan"]\nlook\n[Location: 1, 2]');
    expect(text).toContain(`saved at ${imagePath}`);
    expect(text).not.toContain("bytes]");
    await runtime.close();
  });

  it("never reads a reference outside .downcity/media", async () => {
    const scripted = createScriptedModel(["ok"]);
    const runtime = createAgentRuntime({ rootDir: root, model: scripted.model });
    await runtime.send({ contextId: "tg:1", text: "x", attachments: [{ ...image, path: "../secret.png" }] });
    const text = scripted.calls[0]?.messages.at(-1)?.text ?? "";
    expect(text).toContain("saved at ../secret.png");
    expect(text).not.toContain("bytes]");
    await runtime.close();
  });
});
