/**
 * Optimized code survives the full GC between two statements: the objects whose hidden classes the
 * per-batch loops check (the statement's context, memory reservations, growth reserves) keep a live
 * instance, so V8 does not throw that code away and optimize it again for every statement. Each test
 * optimizes a probe that reads such an object, lets the probe's own instance die, collects, and asks
 * V8 whether the probe is still optimized: it is not when the last instance of the shape died.
 */
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import type { ExecContext } from '../../src/execution/context.js';
import { MemoryPool } from '../../src/execution/memory-pool.js';
import { GrowthReserve } from '../../src/functions/aggregate/growth-reserve.js';

setFlagsFromString('--allow-natives-syntax');
// Compiled after the flag is set: V8's intrinsics are only parsed with it.
const optimizeFor = new Function('f', 'x', '%PrepareFunctionForOptimization(f); f(x); f(x); %OptimizeFunctionOnNextCall(f); f(x);') as (f: (x: unknown) => unknown, x: unknown) => void;
const collect = new Function('%CollectGarbage(null);') as () => void;
// GetOptimizationStatus bit 4: the function has optimized code (cleared once V8 throws the code away).
const optimized = new Function('f', 'return (%GetOptimizationStatus(f) & 16) !== 0;') as (f: unknown) => boolean;

/** A fresh probe per test: its code depends only on the shapes that test feeds it. */
function probe(body: string): (x: unknown) => unknown {
  return new Function('x', body) as (x: unknown) => unknown;
}

/** The kept plan, weakly: no variable of the test holds it. */
function keptPlan(db: Database): WeakRef<object> {
  const kept = (db as unknown as { shapeKeeper: readonly [object, object] | null }).shapeKeeper;
  if (kept === null) throw new Error('no plan kept');
  return new WeakRef(kept[0]);
}

describe('optimized code across statements', () => {
  it("a finished statement's context keeps the context shape alive until the next statement starts", async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE t (a int)');
    await db.query('INSERT INTO t VALUES (1), (2), (3)');
    expect((await db.query('SELECT sum(a) FROM t')).rows).toEqual([[6]]);
    const p = probe('return x.interrupt.aborted === false && x.analyze === false;');
    let ctx: ExecContext | null = db.execContext([], [], false);
    optimizeFor(p, ctx);
    expect(optimized(p)).toBe(true);
    ctx = null;
    collect();
    expect(optimized(p)).toBe(true);
    await db.close();
  });

  it('the kept plan is let go when the next statement starts', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE big AS SELECT g AS a FROM generate_series(1, 1000) g');
    expect((await db.query('SELECT count(*) FROM big')).rows).toEqual([[1000]]);
    const plan = keptPlan(db);
    expect(plan.deref()).toBeDefined();
    await db.query('DROP TABLE big');
    // A WeakRef read in a job holds its target until the job ends: collect from a later macrotask.
    await new Promise((r) => setTimeout(r, 0));
    collect();
    expect(plan.deref()).toBeUndefined();
    await db.close();
  });

  it('an idle session lets its plan go a few seconds after planning it', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE idle AS SELECT g AS a FROM generate_series(1, 1000) g');
    expect((await db.query('SELECT max(a) FROM idle')).rows).toEqual([[1000]]);
    const plan = keptPlan(db);
    await new Promise((r) => setTimeout(r, 5300));
    collect();
    expect(plan.deref()).toBeUndefined();
    // the next statement keeps its own plan again
    expect((await db.query('SELECT min(a) FROM idle')).rows).toEqual([[1]]);
    expect(keptPlan(db).deref()).toBeDefined();
    await db.close();
  }, 20_000);

  it('memory reservations keep their shape with none in use', () => {
    const p = probe('return x.size;');
    let pool: MemoryPool | null = new MemoryPool(1 << 20);
    let r = pool.register('test', false);
    r.grow(100);
    optimizeFor(p, r);
    r.free();
    r = null as unknown as typeof r;
    pool = null;
    collect();
    expect(optimized(p)).toBe(true);
  });

  it('growth reserves keep their shape with none in use', () => {
    const p = probe('x.prepare(10, 10); return x;');
    let g: GrowthReserve | null = new GrowthReserve();
    optimizeFor(p, g);
    g = null;
    collect();
    expect(optimized(p)).toBe(true);
  });
});
