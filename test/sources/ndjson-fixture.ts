/**
 * What the NDJSON reader tests share: a Database and a one-thread DuckDB for the file's life, files
 * written into a temporary folder, rows read by both engines (bigints as numbers), and the reader's
 * body read directly with or without its WebAssembly kernels.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll } from 'vitest';
import { Database } from '../../src/index.js';
import { getValue, type Batch } from '../../src/common/column.js';
import type { Field } from '../../src/common/types.js';
import { readJsonBody } from '../../src/storage/table-functions/read-json.js';

export interface NdjsonFixture {
  readonly db: Database;
  /** The DuckDB connection (threads=1), for queries duckRows does not cover. */
  readonly duck: DuckDBConnection;
  file(text: string | Buffer): string;
  quireRows(f: string, cols: string): Promise<unknown[][]>;
  duckRows(f: string, cols: string): Promise<unknown[][]>;
  /** The reader's body over `f`, `chunkBytes` at a time, with (`kernels`) or without its WebAssembly kernels. */
  readBody(f: string, fields: Field[], cols: number[], chunkBytes: number, kernels: boolean): Promise<unknown[][]>;
}

/**
 * Two files read by the reader's body in turns, batch by batch (`chunkBytes` at a time, kernels on),
 * so the readers share the kernels and their caches: each file's rows, bigints as numbers.
 */
export async function readInTurns(f: string, colsF: number[], g: string, colsG: number[], fields: Field[], chunkBytes: number): Promise<[unknown[][], unknown[][]]> {
  const step = (gen: AsyncGenerator<Batch>, out: unknown[][]) => async (): Promise<boolean> => {
    const next = await gen.next();
    if (next.done === true) return false;
    for (let i = 0; i < next.value.length; i++) out.push(next.value.columns.map((c) => getValue(c, i)));
    return true;
  };
  const outF: unknown[][] = [];
  const outG: unknown[][] = [];
  const stepF = step(readJsonBody([f], fields, colsF, undefined, chunkBytes, () => {}) as AsyncGenerator<Batch>, outF);
  const stepG = step(readJsonBody([g], fields, colsG, undefined, chunkBytes, () => {}) as AsyncGenerator<Batch>, outG);
  let more = true;
  while (more) more = [await stepF(), await stepG()].some(Boolean);
  return [canon(outF), canon(outG)];
}

/** Rows with bigints as numbers, as both engines are compared. */
export const canon = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));

/** Registers the file's beforeAll/afterAll; call at the top level of a test file. */
export function ndjsonFixture(prefix: string): NdjsonFixture {
  let db: Database | null = null;
  let duck: DuckDBConnection;
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    db = await Database.create();
    const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
    duck = await inst.connect();
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await db?.close();
    duck.closeSync();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get db(): Database {
      return db!;
    },
    get duck(): DuckDBConnection {
      return duck;
    },
    file(text) {
      const f = join(dir, `f${n++}.ndjson`);
      writeFileSync(f, text);
      return f;
    },
    async quireRows(f, cols) {
      return canon((await db!.query(`select ${cols} from read_json('${f}') order by id`)).rows);
    },
    async duckRows(f, cols) {
      const r = await duck.runAndReadAll(`select ${cols} from read_json('${f}', format = 'newline_delimited') order by id`);
      return canon(r.getRows() as unknown[][]);
    },
    async readBody(f, fields, cols, chunkBytes, kernels) {
      const out: unknown[][] = [];
      for await (const b of readJsonBody([f], fields, cols, undefined, chunkBytes, () => {}, kernels) as AsyncGenerator<Batch>) {
        for (let i = 0; i < b.length; i++) out.push(b.columns.map((c) => getValue(c, i)));
      }
      return canon(out);
    },
  };
}
