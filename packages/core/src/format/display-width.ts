/**
 * How many monospace columns a string takes: East Asian wide and fullwidth characters and emoji
 * take two, combining marks and variation selectors none, everything else one. Used to align tables.
 */
export function displayWidth(text: string): number {
  // Printable ASCII (most cells) is one column a character.
  if (printableAscii.test(text)) return text.length;
  let width = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (isZeroWidth(code)) continue;
    width += isWide(code) ? 2 : 1;
  }
  return width;
}

const printableAscii = /^[\x20-\x7e]*$/;

function isZeroWidth(code: number): boolean {
  return (
    (code >= 0x300 && code <= 0x36f) || // combining diacritics
    code === 0x200b ||
    code === 0x200d || // zero-width space and joiner
    (code >= 0xfe00 && code <= 0xfe0f) // variation selectors
  );
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) || // Hangul Jamo
    (code >= 0x2e80 && code <= 0x303e) || // CJK radicals, punctuation
    (code >= 0x3041 && code <= 0x33ff) || // kana, CJK symbols
    (code >= 0x3400 && code <= 0x4dbf) || // CJK extension A
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
    (code >= 0xa000 && code <= 0xa4cf) || // Yi
    (code >= 0xac00 && code <= 0xd7a3) || // Hangul syllables
    (code >= 0xf900 && code <= 0xfaff) || // CJK compatibility ideographs
    (code >= 0xfe30 && code <= 0xfe4f) || // CJK compatibility forms
    (code >= 0xff00 && code <= 0xff60) || // fullwidth forms
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) || // emoji and pictographs
    (code >= 0x20000 && code <= 0x3fffd) // CJK extensions B and later
  );
}
