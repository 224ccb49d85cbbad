/**
 * DistinctOn: DISTINCT ON (keys) over input already sorted with the DISTINCT ON keys first. Keeps the
 * first row of each run of equal keys (NULLs equal to each other), streaming, comparing each row with its
 * predecessor — across batch boundaries too.
 */
import { takeBatch, type Batch } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { compileComparator, describeKeys, equalityKeys, type Comparator, type KeyView } from '../sort-key.js';

export class DistinctOn extends PhysicalOperator {
  readonly name = 'DistinctOn';
  private readonly cmp: Comparator;

  constructor(
    readonly input: PhysicalOperator,
    readonly keyCols: readonly number[],
  ) {
    super(input.schema);
    this.cmp = compileComparator(
      equalityKeys(
        keyCols,
        keyCols.map((c) => input.schema[c]!.type),
      ),
    );
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    return `keys: ${describeKeys(this.cmp.keys, this.schema.map((f) => f.name))}`;
  }
  override explainNode(): ExplainNode {
    return { label: 'Unique', details: [] };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const cmp = this.cmp;
    let prev: KeyView | null = null; // last row of the previous non-empty batch (a one-row view)
    for await (const b of this.input.execute(ctx)) {
      await yieldIfDue(ctx);
      const n = b.length;
      if (n === 0) continue;
      const v = cmp.view(b);
      const eq = cmp.rows(v);
      const sel = new Uint32Array(n);
      let w = 0;
      if (prev === null || cmp.cross(v, prev)(0, 0) !== 0) sel[w++] = 0;
      for (let i = 1; i < n; i++) if (eq(i, i - 1) !== 0) sel[w++] = i;
      prev = cmp.view(takeBatch(b, [n - 1], 1));
      if (w === n) yield b;
      else if (w > 0) yield takeBatch(b, sel, w);
    }
  }
}
