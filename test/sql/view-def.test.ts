/**
 * pg_get_viewdef prints a subset of queries exactly as PostgreSQL does (test/slt/view_def.slt compares
 * with PGlite); outside that subset it refuses (0A000) rather than print a different definition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

let db: Database;
beforeAll(async () => {
  db = await Database.create();
  await db.query('CREATE TABLE vdt (a int, b text, c numeric)');
});
afterAll(async () => {
  await db.close();
});

async function code(sql: string): Promise<string | undefined> {
  try {
    await db.query(sql);
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
}

describe('pg_get_viewdef', () => {
  it('prints a view with PostgreSQL layout', async () => {
    await db.query('CREATE VIEW vdv AS SELECT a, count(*) AS n FROM vdt WHERE c < 10 GROUP BY a');
    expect((await db.query("SELECT pg_get_viewdef('vdv')")).rows).toEqual([[' SELECT a,\n    count(*) AS n\n   FROM vdt\n  WHERE (c < (10)::numeric)\n  GROUP BY a;']]);
  });

  it('refuses what it cannot print exactly', async () => {
    // A string literal's type comes from the operator's resolution, which the printer does not redo.
    await db.query("CREATE VIEW vdw AS SELECT a FROM vdt WHERE b = 'x'");
    expect(await code("SELECT pg_get_viewdef('vdw')")).toBe('0A000');
    await db.query('CREATE VIEW vdx AS SELECT sum(a) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM vdt');
    expect(await code("SELECT pg_get_viewdef('vdx')")).toBe('0A000');
  });

  it('needs a literal name; unknown relations are 42P01', async () => {
    expect(await code("SELECT pg_get_viewdef('nosuch')")).toBe('42P01');
    expect(await code("SELECT pg_get_viewdef(b) FROM vdt")).toBe('0A000');
    expect((await db.query("SELECT pg_get_viewdef('vdt')")).rows).toEqual([[null]]);
  });
});
