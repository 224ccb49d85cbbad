/**
 * One LSD radix pass's bucket offsets, shared by the radix sorts: counts[base … base + radix) turned
 * into the position where each digit's rows start. A pass in which every one of the m keys has the
 * same digit would move nothing; it is reported (and its counts left as they are) so the caller skips it.
 */
export function digitOffsets(counts: Uint32Array, base: number, radix: number, m: number): boolean {
  for (let d = 0; d < radix; d++) {
    const c = counts[base + d]!;
    if (c !== 0) {
      if (c === m) return false;
      break;
    }
  }
  let sum = 0;
  for (let d = 0; d < radix; d++) {
    const c = counts[base + d]!;
    counts[base + d] = sum;
    sum += c;
  }
  return true;
}
