/** A statement's physical plan, for tests that check which operators the planner chose and how it marked them. */
import type { Database } from '../../src/index.js';
import type { PhysicalOperator } from '../../src/physical/operator.js';
import { nodeBody } from '../../src/sql/ast.js';
import { parseStatements } from '../../src/sql/parse.js';

/** The physical plan of the SELECT `sql`, flattened to its operators (root first, depth first). */
export async function planOperators(db: Database, sql: string): Promise<PhysicalOperator[]> {
  const prepared = db.prepareSelect(nodeBody(parseStatements(sql)[0]!.stmt), []);
  const root = await db.physical(prepared.plan, db.execContext([], [], false));
  const out: PhysicalOperator[] = [];
  const walk = (op: PhysicalOperator): void => {
    out.push(op);
    op.children().forEach(walk);
  };
  walk(root);
  return out;
}
