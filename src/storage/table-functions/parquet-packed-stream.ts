/**
 * A page's dictionary indexes as one contiguous bit stream, so that a picker can read the value of rank
 * r at bit r·width without unpacking the page first.
 *
 * The RLE / bit-packed hybrid stores indexes in runs, each behind a header. A bit-packed run holds whole
 * groups of 8 values, so it is a whole number of bytes and the next run's values start on a byte: the
 * runs' bytes laid end to end, headers left out, are the values packed at one width from the first. A
 * writer without repeated values (DuckDB writes runs of 256 values) leaves only bit-packed runs; a page
 * with an RLE run is not gathered and the caller unpacks it as before.
 *
 * Where a filter keeps about half of a page's rows, unpacking every present index into an array first
 * was a pass over all of them for picks that read half: reading the wanted ones in the packed bits
 * took `parquet_nulls_scattered` (10M rows) from about 215 to 203 ms.
 */

import { headerEnd, runHeader } from './parquet-run-header.js';

/** Zero bytes past the last value: a 4-byte load at any value (and at rank n, read by a NULL row past the last present one) stays inside. */
const PAD = 8;

export class PackedStream {
  bytes = new Uint8Array(PAD);
  view = new DataView(this.bytes.buffer);

  /**
   * The first n values of `width` bits (1..25) of the runs at bytes[p, end), gathered into this stream
   * with every bit past the n-th value zero. False when a run is RLE (the stream is then left part
   * written: it is scratch). Throws as the unpackers do when the runs end early or pass `end`.
   */
  gather(src: Uint8Array, p: number, end: number, width: number, n: number): boolean {
    const need = Math.ceil((n * width) / 8);
    if (this.bytes.length < need + PAD) {
      this.bytes = new Uint8Array(Math.max(need + PAD, 1 << 16));
      this.view = new DataView(this.bytes.buffer);
    }
    const out = this.bytes;
    let w = 0;
    for (let have = 0; have < n; ) {
      const header = runHeader(src, p, end);
      if (header < 0) throw new Error('encoded values end early');
      if ((header & 1) === 0) return false;
      p = headerEnd;
      const groups = Math.floor(header / 2);
      if (p + groups * width > end) throw new Error('encoded values extend past their page');
      // Only the bytes of values below n (a last run may hold more groups than the page has values).
      const take = Math.min(groups * width, need - w);
      out.set(src.subarray(p, p + take), w);
      w += take;
      p += groups * width;
      have += groups * 8;
    }
    const bits = n * width;
    if ((bits & 7) !== 0) out[bits >>> 3] = out[bits >>> 3]! & ((1 << (bits & 7)) - 1);
    out.fill(0, need, need + PAD);
    return true;
  }
}
