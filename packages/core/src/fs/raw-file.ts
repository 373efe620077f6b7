import {
  close,
  closeSync,
  fdatasync,
  fstat,
  fstatSync,
  fsync,
  ftruncate,
  open,
  openSync,
  read,
  readFile,
  readSync,
  type Stats,
  write,
  writeSync,
} from "node:fs";
import { promisify } from "node:util";

const openAsync = promisify(open);
const closeAsync = promisify(close);
const fstatAsync = promisify(fstat) as (fd: number) => Promise<Stats>;
const readAsync = promisify(read);
const writeAsync = promisify(write);
const fsyncAsync = promisify(fsync);
const fdatasyncAsync = promisify(fdatasync);
const ftruncateAsync = promisify(ftruncate);
const readFileAsync = promisify(readFile);

/** The few file operations history needs, on a plain descriptor (fs/promises FileHandles cost far more per call). */
export interface RawFile {
  /** The descriptor, for the synchronous `fstat` a caller may do without a thread-pool round trip. */
  readonly fd: number;
  stat(): Promise<Stats>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  write(buffer: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }>;
  readFile(): Promise<Buffer>;
  truncate(length: number): Promise<void>;
  sync(): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
}

/** Opens `path` with `flags` (as `fs.open`: a string, or `fs.constants` bits) and wraps the descriptor. */
export async function openRawFile(path: string, flags: string | number): Promise<RawFile> {
  return rawFileOf(await openAsync(path, flags));
}

/**
 * Opens `path` with a synchronous system call; its `stat`, `read`, `write` and `close` are
 * synchronous too (see `synchronousView`), `sync` and `datasync` wait on libuv's thread pool.
 */
export function openRawFileSync(path: string, flags: string | number): RawFile {
  const fd = openSync(path, flags);
  return { ...synchronousView(rawFileOf(fd)), close: async () => closeSync(fd) };
}

function rawFileOf(fd: number): RawFile {
  return {
    fd,
    stat: () => fstatAsync(fd),
    read: async (buffer, offset, length, position) => ({
      bytesRead: await readAsync(fd, buffer, offset, length, position).then((result) =>
        typeof result === "number" ? result : result.bytesRead,
      ),
    }),
    write: async (buffer, offset, length) => ({
      bytesWritten: await writeAsync(fd, buffer, offset, length).then((result) =>
        typeof result === "number" ? result : result.bytesWritten,
      ),
    }),
    readFile: () => readFileAsync(fd),
    truncate: (length) => ftruncateAsync(fd, length),
    sync: () => fsyncAsync(fd),
    datasync: () => fdatasyncAsync(fd),
    close: () => closeAsync(fd),
  };
}

/**
 * The same file with `stat`, `read` and `write` as synchronous system calls: for the small reads and
 * writes of a file the page cache holds, which take microseconds, far less than a round trip through
 * libuv's thread pool (under load, each wakes a pool thread the event loop then waits for). What
 * waits for the disk (`sync`, `datasync`) stays asynchronous.
 */
export function synchronousView(file: RawFile): RawFile {
  return {
    ...file,
    stat: async () => fstatSync(file.fd),
    read: async (buffer, offset, length, position) => ({
      bytesRead: readSync(file.fd, buffer, offset, length, position),
    }),
    write: async (buffer, offset, length) => ({ bytesWritten: writeSync(file.fd, buffer, offset, length) }),
  };
}

/** Reads a UTF-8 file through the callback API (no FileHandle); undefined when it does not exist. */
export async function readTextFileIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFileAsync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
