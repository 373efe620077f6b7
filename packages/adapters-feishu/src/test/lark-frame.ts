/** One header of a long-connection frame. */
export interface LarkFrameHeader {
  key: string;
  value: string;
}

/** The long connection's `pbbp2.Frame`, field for field as the SDK encodes it. */
export interface LarkFrame {
  SeqID: number;
  LogID: number;
  service: number;
  /** 0 control (ping/pong), 1 data (events and their acks). */
  method: number;
  headers: LarkFrameHeader[];
  payload?: Uint8Array;
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}

function field(number: number, wireType: number): number[] {
  return varint(number * 8 + wireType);
}

function bytesField(number: number, value: Uint8Array): number[] {
  return [...field(number, 2), ...varint(value.length), ...value];
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Encodes a frame in protobuf wire format (the fake platform's side of the SDK's codec). */
export function encodeLarkFrame(frame: LarkFrame): Uint8Array {
  const out: number[] = [
    ...field(1, 0),
    ...varint(frame.SeqID),
    ...field(2, 0),
    ...varint(frame.LogID),
    ...field(3, 0),
    ...varint(frame.service),
    ...field(4, 0),
    ...varint(frame.method),
  ];
  for (const header of frame.headers)
    out.push(
      ...bytesField(
        5,
        Uint8Array.from([...bytesField(1, utf8(header.key)), ...bytesField(2, utf8(header.value))]),
      ),
    );
  if (frame.payload) out.push(...bytesField(8, frame.payload));
  return Uint8Array.from(out);
}

function reader(bytes: Uint8Array) {
  let position = 0;
  const readVarint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[position++];
      if (byte === undefined) throw new Error("truncated frame");
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
    }
  };
  return {
    done: () => position >= bytes.length,
    readVarint,
    readBytes: (): Uint8Array => {
      const length = readVarint();
      const slice = bytes.subarray(position, position + length);
      position += length;
      return slice;
    },
  };
}

/** Decodes a frame the SDK sent (pings and event acks). */
export function decodeLarkFrame(bytes: Uint8Array): LarkFrame {
  const frame: LarkFrame = { SeqID: 0, LogID: 0, service: 0, method: 0, headers: [] };
  const input = reader(bytes);
  const text = (value: Uint8Array) => new TextDecoder().decode(value);
  while (!input.done()) {
    const tag = input.readVarint();
    const number = Math.floor(tag / 8);
    if (tag % 8 === 0) {
      const value = input.readVarint();
      if (number === 1) frame.SeqID = value;
      else if (number === 2) frame.LogID = value;
      else if (number === 3) frame.service = value;
      else if (number === 4) frame.method = value;
      continue;
    }
    const value = input.readBytes();
    if (number === 5) {
      const header = reader(value);
      const parsed: LarkFrameHeader = { key: "", value: "" };
      while (!header.done()) {
        const headerTag = header.readVarint();
        const content = text(header.readBytes());
        if (headerTag >> 3 === 1) parsed.key = content;
        else parsed.value = content;
      }
      frame.headers.push(parsed);
    } else if (number === 8) frame.payload = value;
  }
  return frame;
}

/** The value of a frame header, if present. */
export function frameHeader(frame: LarkFrame, key: string): string | undefined {
  return frame.headers.find((header) => header.key === key)?.value;
}
