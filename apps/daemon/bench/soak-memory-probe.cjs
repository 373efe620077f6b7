// Preloaded into the soaked daemon (NODE_OPTIONS=--require): on SIGWINCH (no meaning for a detached
// process) it appends one JSON line to SOAK_PROBE_FILE saying where the process's resident memory
// is: V8's heap spaces, what Node counts outside them, and /proc/self/smaps by kind of mapping.
// Measuring from inside keeps the soak's RSS samples untouched (they stay VmRSS from outside).
const { appendFileSync, readFileSync } = require("node:fs");
const v8 = require("node:v8");

const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
const arenaSize = 64 * 1048576;

/** /proc/self/smaps as mappings: start, end, permissions, name and resident kB. */
function mappings() {
  const found = [];
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const [, start, end, perms, name] = head;
      found.push({ start: Number.parseInt(start, 16), end: Number.parseInt(end, 16), perms, name, rssKb: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss && found.length > 0) found[found.length - 1].rssKb = Number(rss[1]);
  }
  return found;
}

/**
 * Resident MB by kind of mapping: file-backed (binary, libraries), brk heap (glibc's main arena),
 * glibc's thread arenas (each a 64 MB-aligned block of 64 MB, its unused tail mapped ---p), and
 * other anonymous memory (V8's heap pages and code, large mallocs, thread stacks).
 */
function smapsByKind() {
  const kb = { file: 0, brk: 0, arenas: 0, anonOther: 0 };
  let arenaCount = 0;
  const list = mappings();
  list.forEach((map, index) => {
    const next = list[index + 1];
    const blockEnd =
      next?.name === "" && next.perms === "---p" && next.start === map.end ? next.end : map.end;
    const isArena =
      map.name === "" &&
      map.perms === "rw-p" &&
      map.start % arenaSize === 0 &&
      blockEnd - map.start === arenaSize;
    if (isArena) arenaCount += 1;
    if (map.name.startsWith("/")) kb.file += map.rssKb;
    else if (map.name === "[heap]") kb.brk += map.rssKb;
    else if (isArena) kb.arenas += map.rssKb;
    else kb.anonOther += map.rssKb;
  });
  return {
    fileMb: mb(kb.file * 1024),
    brkMb: mb(kb.brk * 1024),
    arenasMb: mb(kb.arenas * 1024),
    arenaCount,
    anonOtherMb: mb(kb.anonOther * 1024),
    mappings: list.length,
  };
}

function sample() {
  const usage = process.memoryUsage();
  const spaces = {};
  let committed = 0;
  for (const space of v8.getHeapSpaceStatistics()) {
    spaces[space.space_name.replace(/_space$/, "")] = {
      usedMb: mb(space.space_used_size),
      committedMb: mb(space.physical_space_size),
    };
    committed += space.physical_space_size;
  }
  return {
    rssMb: mb(usage.rss),
    heapTotalMb: mb(usage.heapTotal),
    heapUsedMb: mb(usage.heapUsed),
    heapCommittedMb: mb(committed),
    externalMb: mb(usage.external),
    arrayBuffersMb: mb(usage.arrayBuffers),
    spaces,
    smaps: smapsByKind(),
  };
}

const file = process.env.SOAK_PROBE_FILE;
if (file) {
  process.on("SIGWINCH", () => {
    appendFileSync(file, `${JSON.stringify(sample())}\n`);
  });
}
// SOAK_TRACE_GC=1: V8's trace of each collection goes to the daemon log; a full collection's
// "-> N MB" is the live heap (--trace-gc is not allowed in NODE_OPTIONS).
if (process.env.SOAK_TRACE_GC === "1") v8.setFlagsFromString("--trace-gc");
