// Child process of compaction-crash.test.ts: appends and compacts one history folder and SIGKILLs
// itself at a chosen step of a chosen compaction. Bundled from source by compaction-crash-setup.ts.
import { writeSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { basename } from "node:path";
import { createHistoryStore } from "./file-history.js";

const [dir = "", prefix = "", killPoint = "", killAtText = "1"] = process.argv.slice(2);
const killAt = Number(killAtText);
// Written straight to fd 1 so a line is out before the SIGKILL that may follow it.
const report = (line: string) => writeSync(1, `${line}\n`);
let compaction = 0;
let archiveId = "";

const die = (point: string): never => {
  report(`kill ${point} ${archiveId}`);
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable");
};

// Every atomic write ends in fs/promises rename: wrap it to stop the process between the steps.
// The history store imports rename as a live binding, which syncBuiltinESMExports() updates.
const fsPromises = createRequire(import.meta.url)("node:fs/promises") as typeof import("node:fs/promises");
const rename = fsPromises.rename;
fsPromises.rename = async (from, to) => {
  const target = String(to);
  const isArchive = target.includes("/archive/");
  if (isArchive) archiveId = basename(target, ".json");
  const now = compaction === killAt;
  if (now && isArchive && killPoint === "archive-temp") die("archive-temp");
  await rename(from, to);
  if (!now) return;
  if (isArchive && killPoint === "archive-renamed") die("archive-renamed");
  if (target.endsWith("messages.jsonl") && killPoint === "messages-renamed") die("messages-renamed");
  if (target.endsWith("meta.json") && killPoint === "meta-renamed") die("meta-renamed");
};
syncBuiltinESMExports();

const store = createHistoryStore({ dir });
let sequence = 0;
const appendOne = async (label: string) => {
  const id = `${prefix}-${label}-${sequence++}`;
  await store.append({
    id,
    role: "user",
    parts: [{ type: "text", text: `message ${id}` }],
    metadata: { createdAt: "" },
  });
  report(`ack ${id}`);
};

for (compaction = 1; compaction <= killAt + 2; compaction++) {
  for (let index = 0; index < 4; index++) await appendOne("m");
  await store.compact({
    keepLast: 3,
    // An append while the summary is being written must survive the rewrite.
    summarize: async (older) => {
      await appendOne("s");
      return `summary of ${older.length} messages`;
    },
  });
}
report("done");
