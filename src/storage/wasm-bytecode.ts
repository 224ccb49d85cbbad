/**
 * The encodings the hand-built WebAssembly kernels (the CSV special-byte index, the NDJSON shape kernel)
 * share: LEB128 integers, sections, names, the value types, and a function body builder whose branches
 * name their targets. Each kernel writes its own bytecode.
 */

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F64 = 0x7c;
export const V128 = 0x7b;

/**
 * Opcodes the kernels use, named as the WebAssembly specification names them (SIMD: the 0xfd prefix of
 * the vector instructions, whose own numbers follow it as LEB128).
 */
export const SELECT = 0x1b;
export const I32_LOAD = 0x28;
export const I64_LOAD = 0x29;
export const I32_LOAD8_U = 0x2d;
export const I32_LOAD16_U = 0x2f;
export const I32_STORE = 0x36;
export const I64_STORE = 0x37;
export const I32_STORE8 = 0x3a;
export const I32_CONST = 0x41;
export const I64_CONST = 0x42;
export const I32_EQZ = 0x45;
export const I32_EQ = 0x46;
export const I32_NE = 0x47;
export const I32_LT_S = 0x48;
export const I32_LT_U = 0x49;
export const I32_GT_U = 0x4b;
export const I32_GE_U = 0x4f;
export const I64_EQZ = 0x50;
export const I64_NE = 0x52;
export const I64_LT_U = 0x54;
export const I64_GE_U = 0x5a;
export const F64_NE = 0x62;
export const I32_CTZ = 0x68;
export const I32_POPCNT = 0x69;
export const I32_ADD = 0x6a;
export const I32_SUB = 0x6b;
export const I32_MUL = 0x6c;
export const I32_AND = 0x71;
export const I32_OR = 0x72;
export const I32_XOR = 0x73;
export const I32_SHL = 0x74;
export const I32_SHR_U = 0x76;
export const I64_CTZ = 0x7a;
export const I64_ADD = 0x7c;
export const I64_SUB = 0x7d;
export const I64_MUL = 0x7e;
export const I64_AND = 0x83;
export const I64_OR = 0x84;
export const I64_XOR = 0x85;
export const I64_SHL = 0x86;
export const I64_SHR_U = 0x88;
export const F64_ABS = 0x99;
export const F64_NEG = 0x9a;
export const F64_ADD = 0xa0;
export const F64_SUB = 0xa1;
export const F64_MUL = 0xa2;
export const F64_DIV = 0xa3;
export const I32_WRAP_I64 = 0xa7;
export const I64_EXTEND_I32_U = 0xad;
export const I64_TRUNC_F64_U = 0xb1;
export const F64_CONVERT_I64_S = 0xb9;
export const F64_CONVERT_I64_U = 0xba;
export const SIMD = 0xfd;
export const V128_LOAD = 0x00;
export const V128_STORE = 0x0b;
export const I8X16_SPLAT = 0x0f;
export const I8X16_EQ = 0x23;
export const V128_OR = 0x50;
export const I8X16_BITMASK = 0x64;

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
