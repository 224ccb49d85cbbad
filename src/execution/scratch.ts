/**
 * Scratch typed arrays that large sorts borrow for as long as they run: the second copy a radix pass
 * scatters into, the key words, the decoded codes. Allocating those afresh costs tens of megabytes of
 * external memory per million-row sort; V8 answers that growth with incremental marking and full
 * collections over the whole heap (a loaded table's strings included), which cost more than the sort.
 *
 * A buffer belongs to one borrower between `take` and `give`: statements interleave at yields, so a
 * borrower must give back only what it no longer reads, and never a buffer it returned to its caller.
 * Taken arrays hold stale values. The pool keeps at most MAX_BYTES and empties itself after IDLE_MS
 * without a take, so an idle process holds nothing.
 */

const MAX_BYTES = 96 * 1024 * 1024;
/** Buffers smaller than this are cheap to allocate and not worth keeping. */
const MIN_BYTES = 256 * 1024;
const IDLE_MS = 5_000;

const free: ArrayBuffer[] = [];
let freeBytes = 0;
let idleTimer: ReturnType<typeof setTimeout> | null = null;

function takeBuffer(bytes: number): ArrayBuffer | null {
  let best = -1;
  for (let i = 0; i < free.length; i++) {
    const b = free[i]!;
    if (b.byteLength >= bytes && (best === -1 || b.byteLength < free[best]!.byteLength)) best = i;
  }
  if (best === -1) return null;
  const b = free[best]!;
  free[best] = free[free.length - 1]!;
  free.pop();
  freeBytes -= b.byteLength;
  return b;
}

function armIdle(): void {
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    free.length = 0;
    freeBytes = 0;
    idleTimer = null;
  }, IDLE_MS);
  idleTimer.unref?.();
}

/** A Uint32Array of length n with stale contents. */
export function takeU32(n: number): Uint32Array<ArrayBuffer> {
  const bytes = n * 4;
  if (bytes < MIN_BYTES) return new Uint32Array(n);
  armIdle();
  const b = takeBuffer(bytes);
  return b === null ? new Uint32Array(n) : new Uint32Array(b, 0, n);
}

/** A Float64Array of length n with stale contents. */
export function takeF64(n: number): Float64Array<ArrayBuffer> {
  const bytes = n * 8;
  if (bytes < MIN_BYTES) return new Float64Array(n);
  armIdle();
  const b = takeBuffer(bytes);
  return b === null ? new Float64Array(n) : new Float64Array(b, 0, n);
}

/**
 * Whether arrays of this many bytes in all could come back from the pool: above it, borrowing them
 * only adds the work of copying out whatever must outlive the borrow.
 */
export function poolCanHold(bytes: number): boolean {
  return bytes <= MAX_BYTES;
}

/** Gives back arrays the caller no longer reads (views over a whole buffer or its start). */
export function give(...arrays: (Uint32Array | Float64Array | null)[]): void {
  for (const a of arrays) {
    if (a === null || a.byteOffset !== 0) continue;
    const b = a.buffer as ArrayBuffer;
    if (b.byteLength < MIN_BYTES || freeBytes + b.byteLength > MAX_BYTES || free.includes(b)) continue;
    free.push(b);
    freeBytes += b.byteLength;
  }
}

/**
 * An allocator of typed arrays over pooled buffers, recording what it took in `taken` so the borrower
 * can give it all back once nothing reads the arrays any more.
 */
export function pooledAlloc(taken: (Uint32Array | Float64Array)[]): (kind: 'u8' | 'i32' | 'f64', n: number) => Uint8Array | Int32Array | Float64Array {
  return (kind, n) => {
    if (kind === 'f64') {
      const a = takeF64(n);
      taken.push(a);
      return a;
    }
    const u = takeU32(kind === 'u8' ? Math.ceil(n / 4) : n);
    taken.push(u);
    return kind === 'u8' ? new Uint8Array(u.buffer, 0, n) : new Int32Array(u.buffer, 0, n);
  };
}
