/**
 * PL/pgSQL bodies: DECLARE, assignment, IF, RETURN and RAISE run; loops, exception handlers and other
 * statements are refused when the function is created (0A000), never run with a partial meaning; a
 * body PL/pgSQL cannot parse is a syntax error (42601).
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
    'CREATE FUNCTION r1(a int) RETURNS int AS $$ DECLARE b int := 0; BEGIN WHILE b < a LOOP b := b + 1; END LOOP; RETURN b; END $$ LANGUAGE plpgsql',
    'CREATE FUNCTION r2(a int) RETURNS int AS $$ BEGIN RETURN 1 / a; EXCEPTION WHEN division_by_zero THEN RETURN 0; END $$ LANGUAGE plpgsql',
    'CREATE FUNCTION r3(a int) RETURNS int AS $$ BEGIN FOR i IN 1..a LOOP NULL; END LOOP; RETURN a; END $$ LANGUAGE plpgsql',
    "CREATE FUNCTION r4(a int) RETURNS int AS $$ BEGIN EXECUTE 'select 1'; RETURN a; END $$ LANGUAGE plpgsql",
  ];
  for (const sql of refused) {
    it(`refuses ${sql.slice(0, 60)}…`, async () => {
      expect(await code(sql)).toBe('0A000');
      const name = /FUNCTION (\w+)/.exec(sql)![1]!;
      expect(await code(`SELECT ${name}(1)`)).toBe('42883');
    });
  }

  it('runs DECLARE, assignment, IF/ELSIF/ELSE and FOUND', async () => {
    await db.query('CREATE FUNCTION s1(a int) RETURNS int AS $$ DECLARE b int := a * 2; BEGIN IF b > 10 THEN b := 10; ELSIF b < 0 THEN b = 0; ELSE b := b + 1; END IF; RETURN b; END $$ LANGUAGE plpgsql');
    expect((await db.query('SELECT s1(7), s1(-3), s1(2), s1(NULL)')).rows).toEqual([[10, 0, 5, null]]);
    await db.query('CREATE FUNCTION s2(a int) RETURNS boolean AS $$ BEGIN RETURN found; END $$ LANGUAGE plpgsql');
    expect((await db.query('SELECT s2(1)')).rows).toEqual([[false]]);
  });

  it('sends RAISE NOTICE to the client and raises RAISE EXCEPTION as P0001', async () => {
    await db.query("CREATE FUNCTION s3(a int) RETURNS int AS $$ BEGIN RAISE NOTICE 'got % and %%', a; IF a < 0 THEN RAISE EXCEPTION 'negative: %', a; END IF; RETURN a; END $$ LANGUAGE plpgsql");
    const r = await db.query('SELECT s3(x) FROM (VALUES (1), (2)) v(x)');
    expect(r.rows).toEqual([[1], [2]]);
    expect(r.notices).toEqual(['got 1 and %', 'got 2 and %']);
    const e = await db.query('SELECT s3(-4)').catch((x: unknown) => x as { code: string; message: string });
    expect(e).toMatchObject({ code: 'P0001', message: 'negative: -4' });
  });

  it('reports reaching the end without RETURN (2F005)', async () => {
    await db.query('CREATE FUNCTION s4(a int) RETURNS int AS $$ BEGIN IF a > 0 THEN RETURN a; END IF; END $$ LANGUAGE plpgsql');
    expect((await db.query('SELECT s4(3)')).rows).toEqual([[3]]);
    expect(await code('SELECT s4(0)')).toBe('2F005');
  });

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
