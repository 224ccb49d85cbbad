/** Text readers and COPY FROM report bytes read against the file size, for the CLI's --progress bar. */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { setProgressListener, type ProgressTask } from '../../src/storage/progress.js';

let dir: string;
let db: Database;
const N = 50_000;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-progress-'));
  db = await Database.create();
  const lines = Array.from({ length: N }, (_, i) => `${i},name ${i}`);
  writeFileSync(join(dir, 'a.csv'), `id,name\n${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'b.json'), Array.from({ length: N }, (_, i) => JSON.stringify({ id: i, name: `name ${i}` })).join('\n') + '\n');
  writeFileSync(join(dir, 'c.txt'), lines.map((l) => l.replace(',', '\t')).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every progress state seen while `sql` runs: per task, the sequence of `done` values. */
async function watch(sql: string): Promise<{ tasks: Map<ProgressTask, number[]>; activeAtEnd: number; result: unknown[][] }> {
  const tasks = new Map<ProgressTask, number[]>();
  let activeAtEnd = -1;
  setProgressListener((ts) => {
    activeAtEnd = ts.length;
    for (const t of ts) {
      const seq = tasks.get(t) ?? [];
      if (seq[seq.length - 1] !== t.done) seq.push(t.done);
      tasks.set(t, seq);
    }
  });
  try {
    const result = (await db.query(sql)).rows;
    return { tasks, activeAtEnd, result };
  } finally {
    setProgressListener(null);
  }
}

function expectFullProgress(w: Awaited<ReturnType<typeof watch>>, label: RegExp, file: string): void {
  const mine = [...w.tasks].filter(([t]) => label.test(t.label));
  expect(mine).toHaveLength(1);
  const [task, seq] = mine[0]!;
  expect(task.unit).toBe('bytes');
  expect(task.total).toBe(statSync(file).size);
  // Increases in steps (a 64 KiB chunk at a time) and ends at the whole file.
  expect(seq.length).toBeGreaterThan(3);
  for (let i = 1; i < seq.length; i++) expect(seq[i]!).toBeGreaterThan(seq[i - 1]!);
  expect(seq[seq.length - 1]).toBe(task.total);
  // The task is removed when the load ends, so the bar erases itself.
  expect(w.activeAtEnd).toBe(0);
}

describe('load progress', () => {
  it('read_csv', async () => {
    const f = join(dir, 'a.csv');
    const w = await watch(`SELECT count(*), sum(id) FROM read_csv('${f}')`);
    expect(w.result).toEqual([[N, (N * (N - 1)) / 2]]);
    expectFullProgress(w, /^read_csv a\.csv$/, f);
  });

  it('read_json', async () => {
    const f = join(dir, 'b.json');
    const w = await watch(`SELECT count(*), max(name) FROM read_json('${f}')`);
    expect(w.result).toEqual([[N, 'name 9999']]);
    expectFullProgress(w, /^read_json b\.json$/, f);
  });

  it('COPY FROM', async () => {
    const f = join(dir, 'c.txt');
    await db.query(`CREATE TABLE c (id int, name text)`);
    const w = await watch(`COPY c FROM '${f}'`);
    expect((await db.query(`SELECT count(*) FROM c`)).rows).toEqual([[N]]);
    expectFullProgress(w, /^COPY c\.txt$/, f);
  });

  it('ends the task when the load fails part way', async () => {
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, Array.from({ length: N }, (_, i) => (i === N - 10 ? 'x' : String(i))).join('\n') + '\n');
    await db.query(`CREATE TABLE d (id int)`);
    let active = -1;
    let peak = 0;
    setProgressListener((ts) => {
      active = ts.length;
      for (const t of ts) peak = Math.max(peak, t.done);
    });
    try {
      await expect(db.query(`COPY d FROM '${bad}'`)).rejects.toMatchObject({ code: '22P02' });
    } finally {
      setProgressListener(null);
    }
    expect(peak).toBeGreaterThan(0);
    expect(active).toBe(0);
    expect((await db.query(`SELECT count(*) FROM d`)).rows).toEqual([[0]]);
  });
});
