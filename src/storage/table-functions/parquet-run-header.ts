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
