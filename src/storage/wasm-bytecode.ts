/**
 * The encodings the hand-built WebAssembly kernels (the CSV special-byte index, the NDJSON shape kernel)
 * share: LEB128 integers, sections, names, the value types, and a function body builder whose branches
 * name their targets. Each kernel writes its own bytecode.
 */

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F64 = 0x7c;
export const V128 = 0x7b;

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 (i32.const and i64.const immediates). */
export function sleb(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** A module section: its id, then its body's length and the body. */
export function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

/** An ASCII name (export and import names). */
export function name(s: string): number[] {
  return [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
}

/** Emits a function body; branches name their target, and the depth is worked out here. */
export class FunctionBody {
  readonly code: number[] = [];
  private readonly labels: string[] = [];

  op(...bytes: number[]): this {
    this.code.push(...bytes);
    return this;
  }
  block(label: string): this {
    this.labels.push(label);
    return this.op(0x02, 0x40);
  }
  loop(label: string): this {
    this.labels.push(label);
    return this.op(0x03, 0x40);
  }
  if(): this {
    this.labels.push('');
    return this.op(0x04, 0x40);
  }
  else(): this {
    return this.op(0x05);
  }
  end(): this {
    this.labels.pop();
    return this.op(0x0b);
  }
  private depth(label: string): number {
    const at = this.labels.lastIndexOf(label);
    if (at < 0) throw new Error(`no label ${label}`);
    return this.labels.length - 1 - at;
  }
  br(label: string): this {
    return this.op(0x0c, this.depth(label));
  }
  brIf(label: string): this {
    return this.op(0x0d, this.depth(label));
  }
  get(l: number): this {
    return this.op(0x20, l);
  }
  set(l: number): this {
    return this.op(0x21, l);
  }
  tee(l: number): this {
    return this.op(0x22, l);
  }
  i32(n: number): this {
    return this.op(0x41, ...sleb(BigInt(n)));
  }
  f64(x: number): this {
    const b = new DataView(new ArrayBuffer(8));
    b.setFloat64(0, x, true);
    return this.op(0x44, ...new Uint8Array(b.buffer));
  }
  i64(n: bigint): this {
    return this.op(0x42, ...sleb(BigInt.asIntN(64, n)));
  }
  /** The byte at local p + offset. */
  byte(p: number, offset = 0): this {
    return this.get(p).op(0x2d, 0, ...uleb(offset));
  }
  loadI32(offset: number): this {
    return this.op(0x28, 2, ...uleb(offset));
  }
  storeI32(offset: number): this {
    return this.op(0x36, 2, ...uleb(offset));
  }
  storeF64(offset: number): this {
    return this.op(0x39, 3, ...uleb(offset));
  }
  /** The eight bytes at local p, little-endian. */
  word(p: number): this {
    return this.get(p).op(0x29, 3, 0);
  }
  loadF64(offset: number): this {
    return this.op(0x2b, 3, ...uleb(offset));
  }
  /** local l += n */
  add(l: number, n: number): this {
    return this.get(l).i32(n).op(0x6a /* i32.add */).set(l);
  }
}

/**
 * The bytes of a module of one exported function, `run`, taking `params` i32 arguments and returning
 * an i32, over a memory `env.mem` of exactly `pages` pages it imports; `body` is the function's code
 * entry (its size first). `more`: further functions of the same type, exported under their names,
 * sharing the memory.
 */
export function kernelModule(params: number, pages: number, body: number[], more: readonly (readonly [string, number[]])[] = []): Uint8Array {
  const fns: (readonly [string, number[]])[] = [['run', body], ...more];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, params, ...new Array<number>(params).fill(I32), 1, I32]),
    ...section(2, [1, ...name('env'), ...name('mem'), 0x02, 0x00, ...uleb(pages)]),
    ...section(3, [...uleb(fns.length), ...fns.map(() => 0)]),
    ...section(7, [...uleb(fns.length), ...fns.flatMap(([n], i) => [...name(n), 0x00, ...uleb(i)])]),
    ...section(10, [...uleb(fns.length), ...fns.flatMap(([, b]) => b)]),
  ]);
}

/** The part of the WebAssembly API the kernels use (the project's type libraries do not declare it). */
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (limits: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}

/** The runtime's WebAssembly, or undefined where there is none (the kernels' callers then use JavaScript). */
export const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
