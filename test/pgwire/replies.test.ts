/**
 * Replies of a client's autocommit loop: each Query's reply (CommandComplete and ReadyForQuery,
 * made once per tag and status and reused) leaves in one socket write, with the tag and the
 * transaction status of that statement, in blocks, after errors and between different tags.
 */
import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { parse, serialize } from 'pg-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { startPgServer, type PgServer } from '../../src/server/pgwire/index.js';

let db: Database;
let server: PgServer;

beforeAll(async () => {
  db = await Database.create();
  server = await startPgServer(db, { port: 0, allowWrites: true, log: () => undefined });
});
afterAll(async () => {
  await server.close();
  await db.close();
});

/** A socket whose every 'data' chunk is kept apart, so the writes behind a reply can be counted. */
async function rawSocket(): Promise<{ socket: Socket; chunks: Buffer[]; until: (n: number) => Promise<void> }> {
  const socket = connect(server.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let wake: (() => void) | null = null;
  socket.on('data', (c: Buffer) => {
    chunks.push(c);
    wake?.();
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const until = async (n: number): Promise<void> => {
    while (chunks.length < n) await new Promise<void>((resolve) => (wake = resolve));
  };
  return { socket, chunks, until };
}

async function messages(b: Buffer): Promise<Record<string, unknown>[]> {
  const s = new PassThrough();
  const out: Record<string, unknown>[] = [];
  const done = parse(s, (m) => out.push(m as unknown as Record<string, unknown>));
  s.end(b);
  await done;
  return out;
}

describe('autocommit replies', () => {
  it('one write per reply, with the right tag and status each time', async () => {
    const { socket, chunks, until } = await rawSocket();
    socket.write(serialize.startup({ user: 'quire', database: 'quire' }));
    // The startup exchange ends with ReadyForQuery; wait until it has come whole.
    for (;;) {
      await until(chunks.length + 1);
      const ms = await messages(Buffer.concat(chunks));
      if (ms.some((m) => m.name === 'readyForQuery')) break;
    }
    chunks.length = 0;
    const script: [string, string[], string][] = [
      ['CREATE TABLE r (id int PRIMARY KEY, v text)', ['CREATE TABLE'], 'I'],
      ["INSERT INTO r VALUES (1, 'a')", ['INSERT 0 1'], 'I'],
      ["INSERT INTO r VALUES (2, 'b')", ['INSERT 0 1'], 'I'],
      ["INSERT INTO r VALUES (3, 'c'), (4, 'd')", ['INSERT 0 2'], 'I'],
      ["INSERT INTO r VALUES (5, 'e')", ['INSERT 0 1'], 'I'],
      ['BEGIN', ['BEGIN'], 'T'],
      ["INSERT INTO r VALUES (6, 'f')", ['INSERT 0 1'], 'T'],
      ["INSERT INTO r VALUES (1, 'dup')", [], 'E'],
      ["INSERT INTO r VALUES (7, 'g')", [], 'E'],
      ['ROLLBACK', ['ROLLBACK'], 'I'],
      ["UPDATE r SET v = v || '!' WHERE id <= 3", ['UPDATE 3'], 'I'],
      ["INSERT INTO r VALUES (8, 'h')", ['INSERT 0 1'], 'I'],
    ];
    for (const [sql, tags, status] of script) {
      socket.write(serialize.query(sql));
      await until(1);
      // Nothing else may come for this Query once its ReadyForQuery is in.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(chunks.length, sql).toBe(1);
      const ms = await messages(chunks[0]!);
      expect(ms.filter((m) => m.name === 'commandComplete').map((m) => m.text), sql).toEqual(tags);
      expect(ms.at(-1), sql).toMatchObject({ name: 'readyForQuery', status });
      if (tags.length === 0) expect(ms.some((m) => m.name === 'error'), sql).toBe(true);
      chunks.length = 0;
    }
    socket.end();
    expect((await db.query('SELECT id, v FROM r ORDER BY id')).rows).toEqual([
      [1, 'a!'],
      [2, 'b!'],
      [3, 'c!'],
      [4, 'd'],
      [5, 'e'],
      [8, 'h'],
    ]);
  });
});
