/**
 * UTF-8 checks on bytes, as PostgreSQL's pg_verifymbstr makes them: shortest forms only, no
 * surrogates, nothing above U+10FFFF. One implementation for every reader that must refuse what
 * PostgreSQL refuses (COPY, read_csv) or tell whether bytes decode unchanged (read_parquet's filters).
 */

/** The length of the sequence a lead byte announces (1 for ASCII and for a byte no sequence starts with). */
export function utf8SequenceLength(lead: number): number {
  if ((lead & 0x80) === 0) return 1;
  if ((lead & 0xe0) === 0xc0) return 2;
  if ((lead & 0xf0) === 0xe0) return 3;
  if ((lead & 0xf8) === 0xf0) return 4;
  return 1;
}

/**
 * The index of the first byte in [from, to) that starts no valid sequence (a sequence cut by `to`
 * included; a NUL byte too when `nulInvalid`, as PostgreSQL text cannot hold one), or -1.
 */
export function firstInvalidUtf8(bytes: Uint8Array, from: number, to: number, nulInvalid: boolean): number {
  let i = from;
  while (i < to) {
    const c = bytes[i]!;
    if (c < 0x80) {
      if (c === 0 && nulInvalid) return i;
      i++;
      continue;
    }
    // n continuation bytes; the first of them has a narrower range after E0, ED, F0 and F4.
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    if (i + n >= to) return i;
    const c1 = bytes[i + 1]!;
    if (c1 < lo || c1 > hi) return i;
    for (let k = 2; k <= n; k++) {
      const ck = bytes[i + k]!;
      if (ck < 0x80 || ck > 0xbf) return i;
    }
    i += n + 1;
  }
  return -1;
}
