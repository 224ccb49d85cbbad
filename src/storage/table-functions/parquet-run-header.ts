/**
 * The header of a run of the RLE / bit-packed hybrid encoding (dictionary indexes and definition
 * levels), shared by every decoder of it.
 */

/** Where the header runHeader last read ends (decoding is synchronous: one cell serves every decoder). */
export let headerEnd = 0;

/**
 * The ULEB128 header of an RLE / bit-packed hybrid run starting at bytes[p], which must end before
 * `end`; -1 when it does not (each caller names what ended early). The position after it goes to
 * headerEnd rather than into a returned object, which the hot loops calling this would allocate per run.
 */
export function runHeader(bytes: Uint8Array, p: number, end: number): number {
  if (p >= end) return -1;
  let b = bytes[p++]!;
  let header = b & 0x7f;
  for (let shift = 7; b >= 0x80; shift += 7) {
    if (p >= end) return -1;
    b = bytes[p++]!;
    header += (b & 0x7f) * 2 ** shift;
  }
  headerEnd = p;
  return header;
}

/**
 * The repeated value of an RLE run: `n` (0–4) bytes little-endian from bytes[p], unsigned. The caller
 * has checked they lie inside its page. Shifts rather than a loop over powers of two: the loop's
 * `2 ** k` was most of the cost of pages made of short runs.
 */
export function readRunValue(bytes: Uint8Array, p: number, n: number): number {
  if (n === 0) return 0;
  let v = bytes[p]!;
  if (n > 1) v |= bytes[p + 1]! << 8;
  if (n > 2) v |= bytes[p + 2]! << 16;
  if (n > 3) v = (v | (bytes[p + 3]! << 24)) >>> 0;
  return v;
}
