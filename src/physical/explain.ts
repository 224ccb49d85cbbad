/** EXPLAIN text: one operator per line, children indented under "->", PostgreSQL-style. */
import type { PhysicalOperator } from './operator.js';

export function explainPlan(root: PhysicalOperator, analyze: boolean): string[] {
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
