/**
 * Mixed load against `quire serve` (a child process, so a crash is seen as its exit): REST clients
 * paging and aggregating, PostgreSQL clients aggregating and paging with LIMIT/OFFSET, one client
 * re-running a long query that must time out, and a `select 1` probe on each port every 100 ms.
 * Reports crashes, 5xx answers, unexpected errors and the probes' latency percentiles. The probe is a
 * process of its own (load-probe.ts), as a monitoring client would be.
 *
 *   npx tsx bench/load-mixed.ts [--seconds 60] [--rest 200] [--pg 50] [--think 500] [--warmup 5]
 *
 * Clients connect spread over the first seconds of a warm-up (--warmup, default 5 s), as a server's
 * clients arrive over time rather than in one millisecond; the probe and the long query start when the
 * warm-up ends and the measured --seconds begin. Errors, 5xx and crashes count from the first request.
 *
 * Each client waits --think ms (uniformly 0..2x) between its requests, as interactive clients do;
 * --think 0 makes every client a closed loop that saturates the server, and then a probe waits
 * behind every other client's time slice.
 *
 * Not a timed test: the figures depend on the machine. Run it on an otherwise idle one.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import pg from 'pg';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

const SECONDS = arg('seconds', 60);
const REST_CLIENTS = arg('rest', 200);
const PG_CLIENTS = arg('pg', 50);
const THINK_MS = arg('think', 500);
const WARMUP = arg('warmup', 5);
/** Clients start spread over this long (within the warm-up). */
const RAMP_MS = Math.min(WARMUP, 3) * 1000;
const QUERY_TIMEOUT_MS = 2000;

const think = (): Promise<void> => new Promise((r) => setTimeout(r, Math.random() * 2 * THINK_MS));
const LONG_QUERY = 'with recursive t(n) as (select 1 union all select n + 1 from t where n < 30000000) select count(*) from t';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

const stats = {
  restRequests: 0,
  rest5xx: 0,
  restTimeouts: 0,
  restOtherErrors: new Map<string, number>(),
  pgQueries: 0,
  pgTimeouts: 0,
  pgOtherErrors: new Map<string, number>(),
  probeRest: [] as number[],
  probePg: [] as number[],
  probeFailures: 0,
};

function bump(m: Map<string, number>, k: string): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}

async function main(): Promise<void> {
  const restPort = await freePort();
  const pgPort = await freePort();
  // LOAD_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof") profiles the server under this load.
  const serverNodeArgs = (process.env.LOAD_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a.length > 0);
  const child = spawn(process.execPath, [...serverNodeArgs, '--import', 'tsx', 'src/cli/main.ts', 'serve', '--demo', '--port', String(restPort), '--pg-port', String(pgPort), '--query-timeout', String(QUERY_TIMEOUT_MS),
    // Sized for this load: every REST client keeps a socket open (the default of 100 per port would
    // refuse half of them with 503, as it should for an unplanned flood).
    '--max-connections', String(Math.max(100, REST_CLIENTS + PG_CLIENTS + 10)),
    // LOAD_SERVER_ARGS (e.g. "--log-slow-ms 300" with LOAD_DEBUG=1) adds server flags.
    ...(process.env.LOAD_SERVER_ARGS ?? '').split(' ').filter((a) => a.length > 0)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let crashed: string | null = null;
  child.on('exit', (code, signal) => {
    if (!stopping) crashed = `exited with ${code ?? signal}`;
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    if (process.env.LOAD_DEBUG) process.stderr.write(d);
    stderr += d.toString();
  });
  let stopping = false;
  const url = `http://127.0.0.1:${restPort}/_plugins/_sql`;
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"select 1"}' });
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error(`server did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const measured = Date.now() + WARMUP * 1000;
  const end = measured + SECONDS * 1000;
  const sleepUntil = (t: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));
  const rampStart = Date.now();
  const post = async (body: unknown): Promise<{ status: number; json: any }> => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    stats.restRequests++;
    if (r.status >= 500) stats.rest5xx++;
    return { status: r.status, json: await r.json() };
  };

  const restWorker = async (id: number): Promise<void> => {
    await sleepUntil(rampStart + (id / REST_CLIENTS) * RAMP_MS);
    while (Date.now() < end && crashed === null) {
      try {
        const kind = id % 4;
        if (kind === 0) {
          let r = await post({ query: 'select * from calcs order by key', fetch_size: 5 });
          while (r.status === 200 && r.json.cursor) r = await post({ cursor: r.json.cursor });
          if (r.status !== 200) bump(stats.restOtherErrors, String(r.status));
        } else if (kind === 1) {
          const r = await post({ query: 'select str2, count(*), sum(num0), avg(int1) from calcs group by str2 order by 1' });
          if (r.status !== 200) bump(stats.restOtherErrors, String(r.status));
        } else if (kind === 2) {
          const r = await post({ query: 'select count(*) from generate_series(1, 200000) i where i % 7 = 0' });
          if (r.status !== 200) bump(stats.restOtherErrors, String(r.status));
        } else {
          const r = await post({ query: 'select key, rank() over (order by num0) from calcs', fetch_size: 10 });
          if (r.status !== 200) bump(stats.restOtherErrors, String(r.status));
        }
        await think();
      } catch (e) {
        bump(stats.restOtherErrors, (e as Error).message);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };

  const pgWorker = async (id: number): Promise<void> => {
    await sleepUntil(rampStart + (id / PG_CLIENTS) * RAMP_MS);
    const c = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'quire', database: 'quire' });
    await c.connect();
    c.on('error', () => undefined);
    try {
      while (Date.now() < end && crashed === null) {
        try {
          stats.pgQueries++;
          if (id % 2 === 0) await c.query('select str1, count(*), max(date2) from calcs group by str1');
          else {
            for (let off = 0; off < 17; off += 5) await c.query('select * from calcs order by key limit 5 offset $1', [off]);
          }
          await think();
        } catch (e) {
          bump(stats.pgOtherErrors, (e as { code?: string }).code ?? (e as Error).message);
        }
      }
    } finally {
      await c.end().catch(() => undefined);
    }
  };

  /** The long query: re-run on one connection with a statement_timeout, and once over REST. */
  const longWorker = async (): Promise<void> => {
    await sleepUntil(measured);
    const c = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'quire', database: 'quire', options: '-c statement_timeout=3000' });
    await c.connect();
    c.on('error', () => undefined);
    try {
      while (Date.now() < end && crashed === null) {
        try {
          await c.query(LONG_QUERY);
          bump(stats.pgOtherErrors, 'long query finished');
        } catch (e) {
          if ((e as { code?: string }).code === '57014') stats.pgTimeouts++;
          else bump(stats.pgOtherErrors, (e as { code?: string }).code ?? (e as Error).message);
        }
        const r = await post({ query: LONG_QUERY }).catch(() => ({ status: 0, json: null }));
        if (r.status === 408) stats.restTimeouts++;
        else bump(stats.restOtherErrors, `long query ${r.status}`);
      }
    } finally {
      await c.end().catch(() => undefined);
    }
  };

  /** The probe runs in a process of its own (see load-probe.ts). */
  const probe = async (): Promise<void> => {
    await sleepUntil(measured);
    const seconds = Math.max(1, Math.round((end - Date.now()) / 1000));
    const p = spawn(process.execPath, ['--import', 'tsx', 'bench/load-probe.ts', url, String(pgPort), String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => p.once('exit', r));
    const r = JSON.parse(out) as { rest: number[]; pg: number[]; failures: number };
    stats.probeRest.push(...r.rest);
    stats.probePg.push(...r.pg);
    stats.probeFailures += r.failures;
  };

  /**
   * The server's CPU time (user + system) from /proc, so the CPU per answered request is a figure
   * that does not depend on what else the machine runs. Null where there is no /proc.
   */
  const serverCpuMs = async (): Promise<number | null> => {
    try {
      const { readFile } = await import('node:fs/promises');
      const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of the stat line, in clock ticks (100 per second on Linux).
      return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
    } catch {
      return null;
    }
  };
  let cpuStart: number | null = null;
  let requestsStart = 0;
  void sleepUntil(measured).then(async () => {
    cpuStart = await serverCpuMs();
    requestsStart = stats.restRequests + stats.pgQueries;
  });

  const t0 = measured;
  await Promise.all([
    ...Array.from({ length: REST_CLIENTS }, (_, i) => restWorker(i)),
    ...Array.from({ length: PG_CLIENTS }, (_, i) => pgWorker(i)),
    longWorker(),
    probe(),
  ]);
  const elapsed = (Date.now() - t0) / 1000;
  const cpuEnd = await serverCpuMs();
  const answered = stats.restRequests + stats.pgQueries - requestsStart;
  stopping = true;
  child.kill('SIGTERM');

  const f = (x: number): string => x.toFixed(1);
  console.log(JSON.stringify({
    seconds: elapsed,
    warmupSeconds: WARMUP,
    thinkMs: THINK_MS,
    restClients: REST_CLIENTS,
    pgClients: PG_CLIENTS,
    crashes: crashed === null ? 0 : 1,
    crash: crashed,
    restRequests: stats.restRequests,
    rest5xx: stats.rest5xx,
    restLongQueryTimeouts408: stats.restTimeouts,
    restOtherErrors: Object.fromEntries(stats.restOtherErrors),
    pgQueries: stats.pgQueries,
    pgLongQueryTimeouts57014: stats.pgTimeouts,
    pgOtherErrors: Object.fromEntries(stats.pgOtherErrors),
    serverCpuMs: cpuStart === null || cpuEnd === null ? null : Math.round(cpuEnd - cpuStart),
    serverCpuMsPerRequest: cpuStart === null || cpuEnd === null || answered <= 0 ? null : Number(((cpuEnd - cpuStart) / answered).toFixed(3)),
    probes: stats.probeRest.length,
    probeFailures: stats.probeFailures,
    probeRestMs: { p50: f(percentile(stats.probeRest, 50)), p99: f(percentile(stats.probeRest, 99)), max: f(Math.max(...stats.probeRest)) },
    probePgMs: { p50: f(percentile(stats.probePg, 50)), p99: f(percentile(stats.probePg, 99)), max: f(Math.max(...stats.probePg)) },
  }, null, 2));
  process.exit(crashed === null && stats.rest5xx === 0 ? 0 : 1);
}

void main();
