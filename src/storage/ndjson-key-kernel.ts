/**
 * A WebAssembly kernel that reads newline-delimited JSON records whatever order their keys come in:
 * each key's bytes are hashed and looked up in a table of the schema's names, which gives the
 * value's slot, so a record in any key order, or with keys left out (their slots stay NULL), costs
 * the same as one in the sampled order. The shape kernel (ndjson-shape-kernel.ts) compares the
 * bytes between values against one learnt line instead, and on files whose records come in several
 * shapes it stopped on most lines, leaving them to JavaScript at twice the cost.
 *
 * It is the `keys` function of the shape kernel's module, over the same memory. Slots, tags and
 * string caches are the shape kernel's (see there), laid out per record in schema
 * field order: slot (row * fields + field). Any number of spaces, tabs and CRs may stand between
 * tokens. The kernel stops at the first line that is not for it: a key not in the table or with an
 * escape, a key named twice (which value counts is the general path's rule), a nested value, an
 * escape or control character in a string, a number JSON forbids, a line without its '\n' in the
 * window. That line is the caller's, read the general way.
 */
import { FunctionBody as Body, I32, I64, I32_EQZ, I32_EQ, I32_NE, I32_LT_U, I32_GE_U, I32_ADD, I32_SUB, I32_MUL, I32_AND, I32_OR, I32_XOR, I32_SHL, I32_SHR_U, I64_AND, I64_OR, I64_SHL, I64_EQZ, I64_EXTEND_I32_U } from './wasm-bytecode.js';
import { C, CI, E, END, H, J, K, LEN, LINES_AT, LIT_AT, MAXROWS, NSTEPS, OUT_AT, P, Q, ROWS, SHAPE_LITERAL_BYTES, SLOT, SLOT_BYTES, Tag, functionCode, scalarValue, skipSpace } from './ndjson-shape-kernel.js';

/** Entries of the key table (a power of two, well above the most fields a schema may have). */
export const KEY_SLOTS = 128;
/** Per entry: the name's hash, its bytes' address and length (-1: an empty entry), and its field | cache << 8. */
export const KEY_ENTRY = 16;
/** The table and the names' bytes take the shape kernel's literal area. */
export const KEY_TABLE_AT = LIT_AT;
export const KEY_BYTES_AT = LIT_AT + KEY_SLOTS * KEY_ENTRY;
export const KEY_BYTES = SHAPE_LITERAL_BYTES - KEY_SLOTS * KEY_ENTRY;

/** The table entry a name's hash starts its probe at. */
export function keySlot(hash: number): number {
  return (hash ^ (hash >>> 7)) & (KEY_SLOTS - 1);
}

// Locals after the shared ones (see functionCode).
const ROWSLOT = 24; // the first slot of the record
const KS = 25; // where the key's bytes start
const SEEN = 26; // i64: the fields the record has named
const BIT = 27; // i64

export function keyKernelBody(): number[] {
  const f = new Body();
  // NSTEPS is the number of fields here.
  f.block('done').loop('row');
  f.i32(LINES_AT).get(ROWS).i32(2).op(I32_SHL, I32_ADD).get(P).storeI32(0);
  f.get(ROWS).get(MAXROWS).op(I32_GE_U).brIf('done');
  f.get(P).get(END).op(I32_GE_U).brIf('done');
  f.i32(OUT_AT).get(ROWS).get(NSTEPS).i32(SLOT_BYTES).op(I32_MUL, I32_MUL, I32_ADD).tee(ROWSLOT).set(SLOT);
  // Every field starts NULL: a key the record leaves out stays so.
  f.i32(0).set(J);
  f.block('nulls').loop('nullc');
  f.get(J).get(NSTEPS).op(I32_GE_U).brIf('nulls');
  f.get(SLOT).i32(Tag.Null).storeI32(16);
  f.add(SLOT, SLOT_BYTES).add(J, 1).br('nullc');
  f.end().end();
  f.i64(0n).set(SEEN);
  f.block('fail');
  skipSpace(f);
  f.byte(P).i32(123).op(I32_NE).brIf('fail');
  f.add(P, 1);
  skipSpace(f);
  f.byte(P).i32(125).op(I32_EQ).if();
  f.add(P, 1);
  f.else();
  f.block('fields').loop('field');
  {
    f.byte(P).i32(34).op(I32_NE).brIf('fail');
    f.add(P, 1);
    f.get(P).set(KS);
    f.i32(0).set(H);
    f.block('key').loop('keyc');
    f.byte(P).tee(C).i32(34).op(I32_EQ).brIf('key');
    f.get(C).i32(92).op(I32_EQ).brIf('fail');
    f.get(C).i32(32).op(I32_LT_U).brIf('fail');
    f.get(H).i32(31).op(I32_MUL).get(C).op(I32_ADD).set(H);
    f.add(P, 1).br('keyc');
    f.end().end();
    f.get(P).get(KS).op(I32_SUB).set(LEN);
    f.add(P, 1);
    // The name's entry: probed from keySlot(hash) until the name or an empty entry (not a field).
    f.i32(KEY_TABLE_AT).get(H).get(H).i32(7).op(I32_SHR_U, I32_XOR).i32(KEY_SLOTS - 1).op(I32_AND).i32(KEY_ENTRY).op(I32_MUL, I32_ADD).set(E);
    f.block('found').loop('probe');
    f.get(E).loadI32(8).i32(-1).op(I32_EQ).brIf('fail');
    f.get(E).loadI32(0).get(H).op(I32_EQ).get(E).loadI32(8).get(LEN).op(I32_EQ).op(I32_AND).if();
    {
      f.get(E).loadI32(4).set(Q);
      f.i32(0).set(K);
      f.block('same').loop('samec');
      f.get(K).get(LEN).op(I32_GE_U).brIf('found');
      f.get(KS).get(K).op(I32_ADD).op(0x2d, 0, 0).get(Q).get(K).op(I32_ADD).op(0x2d, 0, 0).op(I32_NE).brIf('same');
      f.add(K, 1).br('samec');
      f.end().end();
    }
    f.end();
    f.i32(KEY_TABLE_AT).get(E).i32(KEY_ENTRY - KEY_TABLE_AT).op(I32_ADD).i32(KEY_SLOTS * KEY_ENTRY - 1).op(I32_AND, I32_ADD).set(E);
    f.br('probe');
    f.end().end();
    f.get(E).loadI32(12).tee(J).i32(8).op(I32_SHR_U).set(CI);
    f.get(J).i32(255).op(I32_AND).set(J);
    // A key named twice: the general path decides which value counts.
    f.i64(1n).get(J).op(I64_EXTEND_I32_U, I64_SHL).tee(BIT).get(SEEN).op(I64_AND).op(I64_EQZ, I32_EQZ).brIf('fail');
    f.get(SEEN).get(BIT).op(I64_OR).set(SEEN);
    skipSpace(f);
    f.byte(P).i32(58).op(I32_NE).brIf('fail');
    f.add(P, 1);
    skipSpace(f);
    f.get(ROWSLOT).get(J).i32(SLOT_BYTES).op(I32_MUL, I32_ADD).set(SLOT);
    scalarValue(f);
    skipSpace(f);
    f.byte(P).tee(C).i32(44).op(I32_EQ).if();
    f.add(P, 1);
    skipSpace(f);
    f.br('field');
    f.end();
    f.get(C).i32(125).op(I32_NE).brIf('fail');
    f.add(P, 1);
  }
  f.end().end(); // field, fields
  f.end();
  skipSpace(f);
  f.byte(P).i32(10).op(I32_NE).brIf('fail');
  f.add(P, 1).add(ROWS, 1).br('row');
  f.end(); // fail
  f.br('done');
  f.end().end(); // row, done
  f.get(ROWS);
  f.op(0x0b);
  return functionCode(f, [[2, I32], [2, I64]]);
}
