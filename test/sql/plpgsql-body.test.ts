/**
 * PL/pgSQL bodies beyond `BEGIN RETURN expr; END` are refused when the function is created (0A000),
 * never run with a partial meaning; a body PL/pgSQL cannot parse is a syntax error (42601).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

let db: Database;
beforeAll(async () => {
  db = await Database.create();
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

describe('PL/pgSQL function bodies', () => {
  const refused = [
    'CREATE FUNCTION r1(a int) RETURNS int AS $$ DECLARE b int; BEGIN b := a; RETURN b; END $$ LANGUAGE plpgsql',
    'CREATE FUNCTION r2(a int) RETURNS int AS $$ BEGIN IF a > 0 THEN RETURN 1; END IF; RETURN 0; END $$ LANGUAGE plpgsql',
    "CREATE FUNCTION r3(a int) RETURNS int AS $$ BEGIN RAISE NOTICE 'x'; RETURN a; END $$ LANGUAGE plpgsql",
    'CREATE FUNCTION r4(a int) RETURNS boolean AS $$ BEGIN RETURN found; END $$ LANGUAGE plpgsql',
  ];
  for (const sql of refused) {
    it(`refuses ${sql.slice(0, 60)}…`, async () => {
      expect(await code(sql)).toBe('0A000');
      const name = /FUNCTION (\w+)/.exec(sql)![1]!;
      expect(await code(`SELECT ${name}(1)`)).toBe('42883');
    });
  }

  it('reports a body PL/pgSQL cannot parse as a syntax error', async () => {
    expect(await code('CREATE FUNCTION r5(a int) RETURNS int AS $$ BEGIN RETURN a +; END $$ LANGUAGE plpgsql')).toBe('42601');
  });

  it('still refuses other languages', async () => {
    expect(await code("CREATE FUNCTION r6() RETURNS int AS 'x' LANGUAGE plperl")).toBe('0A000');
  });

  it('runs a RETURN-only body', async () => {
    await db.query('CREATE FUNCTION ok1(a int, b int) RETURNS int AS $$ BEGIN RETURN a * b + $1; END $$ LANGUAGE plpgsql');
    expect((await db.query('SELECT ok1(3, 4), ok1(NULL, 1)')).rows).toEqual([[15, null]]);
  });
});
