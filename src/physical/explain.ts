/**
 * EXPLAIN text. The default is PostgreSQL's layout and vocabulary (Seq Scan, Sort Key, Filter lines
 * folded into the node that evaluates them), so psql users and PostgreSQL tools read Quire's plans as
 * they read PostgreSQL's; nodes PostgreSQL has no counterpart for keep Quire's names (TopN,
 * TopNRanking). FORMAT QUIRE prints one line per physical operator with Quire's own detail.
 */
import type { ExplainHow, ExplainNode, ExplainWrapper, OperatorMetrics, PhysicalOperator } from './operator.js';

export interface ExplainOptions {
  readonly analyze: boolean;
  readonly format?: 'text' | 'quire';
  readonly verbose?: boolean;
  /** ANALYZE's actual times (PostgreSQL's TIMING option, on by default). */
  readonly timing?: boolean;
  /** ANALYZE's closing Planning Time / Execution Time lines (PostgreSQL's SUMMARY option, on with ANALYZE). */
  readonly summary?: boolean;
  /** EXPLAIN (LOGICAL): the optimized logical plan instead of the physical one. */
  readonly logical?: boolean;
}

/** The lines that close an EXPLAIN ANALYZE. */
export function explainSummary(o: ExplainOptions, planningMs: number, executionMs: number, rows: number): string[] {
  if (o.format === 'quire') return [`Result rows: ${rows}`, `Execution Time: ${executionMs.toFixed(3)} ms`];
  if (o.summary === false) return [];
  return [`Planning Time: ${planningMs.toFixed(3)} ms`, `Execution Time: ${executionMs.toFixed(3)} ms`];
}

export function explainPlan(root: PhysicalOperator, opts: ExplainOptions | boolean): string[] {
  const o: ExplainOptions = typeof opts === 'boolean' ? { analyze: opts } : opts;
  return o.format === 'quire' ? quireText(root, o.analyze) : postgresText(root, o);
}

function quireText(root: PhysicalOperator, analyze: boolean): string[] {
  const lines: string[] = [];
  const walk = (op: PhysicalOperator, depth: number): void => {
    // Hidden columns (an UPDATE's row identity) are named with a leading NUL so no identifier can
    // clash with them; a NUL has no place in text a client prints.
    const d = op.describe().replace(/\u0000([a-z]+(?: [a-z]+)*)/g, '[$1]');
    let line = depth === 0 ? op.name : `${'      '.repeat(depth - 1)}  ->  ${op.name}`;
    if (d) line += ` (${d})`;
    if (analyze) {
      const m = op.metrics;
      line += ` (actual rows=${m.rows} loops=${m.loops} time=${m.timeMs.toFixed(3)} ms`;
      for (const [k, v] of Object.entries(m.extra)) line += ` ${k}=${v}`;
      line += ')';
    }
    lines.push(line);
    for (const c of op.children()) walk(c, depth + 1);
  };
  walk(root, 0);
  return lines;
}

/** A node as printed: what explainNode said, after Filter and Project operators were folded in. */
interface Shown {
  label: string;
  details: string[];
  outputs: readonly string[];
  projects: boolean;
  children: Shown[];
  /** Whose actual rows and times the node reports (a folded Filter's: the rows that leave the node). */
  metrics: OperatorMetrics | null;
  /** Rows a folded Filter removed (ANALYZE's "Rows Removed by Filter"). */
  removed: number | null;
  extra: Record<string, number | string>;
}

function limitOverScan(n: Shown): boolean {
  let at = n;
  if (!at.label.startsWith('Limit')) return false;
  while (at.label.startsWith('Limit') && at.children.length === 1) at = at.children[0]!;
  return / Scan( |$)/.test(at.label);
}

function postgresText(root: PhysicalOperator, o: ExplainOptions): string[] {
  const verbose = o.verbose === true;
  const how: ExplainHow = { verbose, qualify: verbose || relationCount(root) > 1 };
  const shown = show(root, how, true);
  const lines: string[] = [];
  const print = (n: Shown, depth: number): void => {
    let label = n.label;
    if (o.analyze) label += ` ${actual(n.metrics, o.timing !== false)}`;
    lines.push(depth === 0 ? label : `${' '.repeat(6 * (depth - 1) + 2)}->  ${label}`);
    const pad = ' '.repeat(6 * depth + 2);
    const details = verbose ? [`Output: ${n.outputs.join(', ')}`, ...n.details] : [...n.details];
    if (o.analyze) {
      // PostgreSQL's text format prints the count only when the filter removed something.
      if (n.removed !== null && n.removed > 0) details.push(`Rows Removed by Filter: ${n.removed}`);
      // PostgreSQL's detail labels are in title case ("Sort Method", "Peak Memory Usage").
      for (const [k, v] of Object.entries(n.extra)) details.push(`${k.replace(/(^|\s)([a-z])/g, (_m, sp: string, c: string) => sp + c.toUpperCase())}: ${v}`);
    }
    for (const d of details) lines.push(pad + d);
    for (const c of n.children) print(c, depth + 1);
  };
  print(shown, 0);
  return lines;
}

function actual(m: OperatorMetrics | null, timing: boolean): string {
  if (m === null || m.loops === 0) return '(never executed)';
  const rows = Math.round(m.rows / m.loops);
  if (!timing) return `(actual rows=${rows} loops=${m.loops})`;
  return `(actual time=${(m.startupMs / m.loops).toFixed(3)}..${(m.timeMs / m.loops).toFixed(3)} rows=${rows} loops=${m.loops})`;
}

function show(op: PhysicalOperator, how: ExplainHow, root = false): Shown {
  const kids = op.children().map((c) => show(c, how));
  const node: ExplainNode = op.explainNode(
    kids.map((k) => k.outputs),
    how,
  );
  // A filter or projection with subqueries has their plans as further children: PostgreSQL prints
  // them as SubPlan sections of the node that evaluates the expression.
  const only = kids.length === 1 || (node.merge !== undefined && kids.length > 1) ? kids[0]! : null;
  const subplans = node.merge !== undefined ? kids.slice(1).map((k, i) => wrapped(k, { label: `SubPlan ${i + 1}`, details: [], rowsOf: 'child' }, op)) : [];
  const outputs = node.outputs ?? (only !== null && only.outputs.length === op.schema.length ? only.outputs : op.schema.map((f) => f.name));
  const extra = Object.fromEntries(Object.entries(op.metrics.extra).map(([k, v]) => [k, v]));
  // At the top, dropping columns the sort or grouping below needed is the executor's junk filter, not a node.
  // Over a Limit straight on a scan nothing needed extra columns: the list is computed above the Limit,
  // which cannot project, so PostgreSQL shows a Result there.
  const junkFilter = root && node.merge === 'projection' && node.selectsColumns === true && only !== null && !limitOverScan(only);
  if (only !== null && node.merge !== undefined && (only.projects || junkFilter)) {
    if (node.merge === 'filter') {
      const inputRows = only.metrics?.rows ?? 0;
      return {
        ...only,
        details: [...only.details, ...node.details],
        children: [...only.children, ...subplans],
        outputs,
        metrics: op.metrics,
        removed: op.metrics.loops > 0 ? Math.round((inputRows - op.metrics.rows) / op.metrics.loops) : null,
        extra: { ...only.extra, ...extra },
      };
    }
    // A projection of no columns (count(*) reads none) is Quire's pruning, not a target list PostgreSQL would print.
    return { ...only, children: [...only.children, ...subplans], outputs: outputs.length === 0 ? only.outputs : outputs, metrics: op.metrics, extra: { ...only.extra, ...extra } };
  }
  const children = kids.map((k, i) => {
    const wrap = node.childWrappers?.[i];
    return wrap === undefined || wrap === null ? k : wrapped(k, wrap, op);
  });
  return {
    label: node.merge !== undefined ? 'Result' : node.label,
    details: [...node.details],
    outputs,
    projects: node.projects === true || node.merge !== undefined,
    children,
    metrics: op.metrics,
    removed: null,
    extra,
  };
}

function wrapped(k: Shown, wrap: ExplainWrapper, op: PhysicalOperator): Shown {
  return { label: wrap.label, details: [...wrap.details], outputs: k.outputs, projects: false, children: [k], metrics: wrap.rowsOf === 'child' ? k.metrics : op.metrics, removed: null, extra: {} };
}

/** Relations the plan reads (scans without children): more than one and PostgreSQL qualifies column names. */
function relationCount(op: PhysicalOperator): number {
  const kids = op.children();
  if (kids.length === 0) return 1;
  let n = 0;
  for (const k of kids) n += relationCount(k);
  return n;
}
