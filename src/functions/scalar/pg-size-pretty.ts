/**
 * pg_size_pretty(bigint): a byte count in bytes, kB, MB, GB, TB or PB (units of 1024), switching
 * unit once the value reaches 10240 of the current one, and rounding half away from zero, as
 * PostgreSQL 16's dbsize.c does.
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

const UNITS: { name: string; limit: bigint; round: boolean; bits: number }[] = [
  { name: 'bytes', limit: 10n * 1024n, round: false, bits: 0 },
  { name: 'kB', limit: 20n * 1024n - 1n, round: true, bits: 10 },
  { name: 'MB', limit: 20n * 1024n - 1n, round: true, bits: 20 },
  { name: 'GB', limit: 20n * 1024n - 1n, round: true, bits: 30 },
  { name: 'TB', limit: 20n * 1024n - 1n, round: true, bits: 40 },
  { name: 'PB', limit: 20n * 1024n - 1n, round: true, bits: 50 },
];

function pretty(v: number | bigint): string {
  let size = BigInt(v);
  for (let i = 0; i < UNITS.length; i++) {
    const u = UNITS[i]!;
    const next = UNITS[i + 1];
    if (next === undefined || (size < 0n ? -size : size) < u.limit) {
      // The previous step kept one extra bit for this rounding; BigInt division truncates like C.
      if (u.round) size = (size + (size < 0n ? -1n : 1n)) / 2n;
      return `${size} ${u.name}`;
    }
    const bits = next.bits - u.bits - (next.round ? 1 : 0) + (u.round ? 1 : 0);
    size /= 1n << BigInt(bits);
  }
  throw new Error('unreachable');
}

registerScalar('pg_size_pretty', { args: ['int8'], returns: T.text, fn: (_c: EvalContext, v: number | bigint) => pretty(v) });
