/**
 * Every acknowledged COMMIT survives kill -9: a server process writes one database directory from two
 * pgwire sessions and the library at once, and is killed with SIGKILL at random moments, many times.
 * After each kill the directory reopens cleanly, holds every acknowledged commit, holds nothing that was
 * rolled back, and holds no row that was never sent. Checkpoints run every few KB of log; every
 * third kill lands right after a given step of one. The library also creates and drops indexes: an acknowledged
 * definition is there after the kill and answers as a scan does; an acknowledged DROP INDEX stays done. CRASH_KILLS=n sets the number of kills (default 50, as the durability issue asks).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'quire-crash-sessions-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const KILLS = Number(process.env.CRASH_KILLS ?? 50);
const CHECKPOINT_STEPS = ['start', 'tables-written', 'manifest-written'];

/** A deterministic PRNG so a failing seed can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('kill -9 with concurrent sessions', () => {
  it(`keeps every acknowledged commit across ${KILLS} kills`, async () => {
    const dir = join(root, 'db');
    const child = fileURLToPath(new URL('./crash-server.mjs', import.meta.url));
    const random = rng(20261204);
    const acked = new Set<string>();
    let checkpoints = 0;
    let killedInCheckpoint = 0;
    let indexesCreated = 0;
    const sent = new Set<string>();
    // Each writer's counter: its acknowledged value, and whether an increment was in flight at the kill.
    const ctr: Record<string, { acked: number; inflight: number }> = { a: { acked: 0, inflight: 0 }, b: { acked: 0, inflight: 0 } };
    const unexpected: string[] = [];
    for (let round = 1; round <= KILLS; round++) {
      const p = spawn(process.execPath, [child, dir, String(round)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      const port = await new Promise<number>((resolve, reject) => {
        p.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /port (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        p.once('exit', () => reject(new Error(`server exited early: ${out}`)));
      });
      const writers = ['a', 'b'].map(async (w) => {
        const c = new pg.Client({ host: '127.0.0.1', port, user: 'crash', database: 'quire' });
        c.on('error', () => undefined);
        try {
          await c.connect();
          for (let n = 1; ; n++) {
            const who = `${w}${round}`;
            if (n % 4 === 3) {
              // The two writers update different rows of one table in overlapping transactions.
              ctr[w]!.inflight = 1;
              await c.query('BEGIN');
              await c.query(`UPDATE ctr SET n = n + 1 WHERE w = '${w}'`);
              await new Promise((r) => setTimeout(r, random() * 3));
              await c.query('COMMIT');
              ctr[w]!.acked++;
              ctr[w]!.inflight = 0;
            }
            if (n % 4 === 0) {
              // A rolled-back transaction: its rows must never appear.
              await c.query('BEGIN');
              await c.query(`INSERT INTO log VALUES ('rb', ${n})`);
              await c.query('ROLLBACK');
              continue;
            }
            sent.add(`${who}:${n}`);
            if (n % 2 === 0) {
              sent.add(`${who}:${-n}`);
              await c.query(`INSERT INTO log VALUES ('${who}', ${n}); INSERT INTO log VALUES ('${who}', ${-n})`);
              acked.add(`${who}:${-n}`);
            } else if (n % 4 === 1) {
              // With parameters (Parse, Bind, Execute, Sync): the Bind commits the row on its own.
              await c.query('INSERT INTO log VALUES ($1, $2)', [who, n]);
            } else {
              await c.query(`INSERT INTO log VALUES ('${who}', ${n})`);
            }
            acked.add(`${who}:${n}`);
          }
        } catch (e) {
          // The server was killed (a connection error); an error the server sent is a failure.
          const code = (e as { code?: string }).code;
          if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) unexpected.push(`${code} ${(e as Error).message}`);
        }
      });
      if (round % 3 === 0) {
        // Every third kill waits for a checkpoint to reach a given step, and lands right after it.
        const step = CHECKPOINT_STEPS[(round / 3) % CHECKPOINT_STEPS.length]!;
        const t0 = Date.now();
        while (!out.includes(`checkpoint ${step}\n`) && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 1));
      } else {
        // A random moment once this round's writers have committed something, so a loaded machine
        // (slow server start-up) still kills while commits flow rather than before the first.
        const before = ctr.a!.acked + ctr.b!.acked;
        await new Promise((r) => setTimeout(r, 100 + random() * 400));
        const t0 = Date.now();
        while (ctr.a!.acked + ctr.b!.acked === before && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 5));
      }
      p.kill('SIGKILL');
      // 'close', not 'exit': the process may exit before its last lines (acknowledgements) are read
      // from the pipe, and rows those lines announce would then count as never sent.
      await new Promise((r) => p.once('close', r));
      await Promise.all(writers);
      const steps = [...out.matchAll(/^checkpoint (\S+)$/gm)].map((m) => m[1]!);
      checkpoints += steps.filter((x) => x === 'start').length;
      if (steps.length > 0 && steps[steps.length - 1] !== 'log-rotated') killedInCheckpoint++;
      // The library acknowledges each commit on stdout; the one after the last acknowledged may be in flight.
      let last = 0;
      for (const line of out.split('\n')) {
        const m = /^ack (\d+)$/.exec(line);
        if (!m) continue;
        const n = Number(m[1]);
        last = Math.max(last, n);
        acked.add(`lib${round}:${n}`);
        if (n % 3 === 0) acked.add(`lib${round}:${-n}`);
      }
      for (let n = 1; n <= last + 1; n++) {
        sent.add(`lib${round}:${n}`);
        if (n % 3 === 0) sent.add(`lib${round}:${-n}`);
      }

      // An acknowledged CREATE INDEX survives unless its DROP was under way; an acknowledged DROP INDEX stays done.
      const created = [...out.matchAll(/^index created (\S+)$/gm)].map((m) => m[1]!);
      // A CREATE INDEX in flight at the kill may or may not have committed: it is dropped if it did.
      const creating = [...out.matchAll(/^index creating (\S+)$/gm)].map((m) => m[1]!).filter((x) => !created.includes(x));
      const dropping = new Set([...out.matchAll(/^index dropping (\S+)$/gm)].map((m) => m[1]!));
      const dropped = new Set([...out.matchAll(/^index dropped (\S+)$/gm)].map((m) => m[1]!));
      indexesCreated += created.length;

      const db = await Database.create({ path: dir });
      for (const name of created) {
        if (dropped.has(name)) {
          await expect(db.query(`DROP INDEX ${name}`), `index ${name} dropped before kill ${round}`).rejects.toMatchObject({ code: '42704' });
        } else if (!dropping.has(name)) {
          const through = (await db.query('EXPLAIN (FORMAT QUIRE) SELECT count(*) FROM log WHERE n = 5')).rows.flat().join('\n');
          if (!through.includes(`index: ${name}`)) {
            const exists = await db.query(`DROP INDEX ${name}`).then(() => 'exists', (e: Error) => e.message);
            throw new Error(`index ${name} after kill ${round}: ${exists}\n${through}\n${out.split('\n').filter((l) => /index|checkpoint/.test(l)).slice(-12).join('\n')}`);
          }
          const viaIndex = (await db.query('SELECT count(*) FROM log WHERE n = 5')).rows;
          await db.query('SET enable_indexscan = off; SET enable_indexonlyscan = off');
          expect((await db.query('SELECT count(*) FROM log WHERE n = 5')).rows, `rows through ${name}`).toEqual(viaIndex);
          await db.query('RESET enable_indexscan; RESET enable_indexonlyscan');
          await db.query(`DROP INDEX ${name}`);
        } else {
          await db.query(`DROP INDEX IF EXISTS ${name}`);
        }
      }
      for (const name of creating) await db.query(`DROP INDEX IF EXISTS ${name}`);
      const rows = (await db.query('SELECT who, n FROM log')).rows.map(([who, n]) => `${who as string}:${n as number}`);
      for (const [w, n] of (await db.query('SELECT w, n FROM ctr')).rows as [string, number][]) {
        const c = ctr[w]!;
        expect(n, `counter ${w} after kill ${round}`).toBeGreaterThanOrEqual(c.acked);
        expect(n, `counter ${w} after kill ${round}`).toBeLessThanOrEqual(c.acked + c.inflight);
        c.acked = n;
        c.inflight = 0;
      }
      expect(unexpected, `errors from the server in round ${round}`).toEqual([]);
      await db.close();
      const present = new Set(rows);
      expect(present.size, 'no row twice').toBe(rows.length);
      const lost = [...acked].filter((k) => !present.has(k));
      expect(lost, `acknowledged commits lost after kill ${round}`).toEqual([]);
      const bogus = rows.filter((k) => !sent.has(k));
      expect(bogus, `rows never sent or rolled back, after kill ${round}`).toEqual([]);
    }
    // The kills landed while commits were flowing, not before any, and some in the middle of a checkpoint.
    expect(ctr.a!.acked + ctr.b!.acked, "counter increments committed").toBeGreaterThanOrEqual(KILLS - Math.floor(KILLS / 3));
    expect(acked.size).toBeGreaterThanOrEqual(KILLS);
    expect(checkpoints, `${killedInCheckpoint} kills in a checkpoint`).toBeGreaterThanOrEqual(Math.floor(KILLS / 3));
    expect(killedInCheckpoint).toBeGreaterThanOrEqual(Math.floor(KILLS / 6));
    expect(indexesCreated, 'CREATE INDEX statements acknowledged').toBeGreaterThanOrEqual(KILLS / 5);
  }, 600_000);
});
