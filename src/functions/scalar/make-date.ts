/** make_date(year, month, day): negative years are BC. */
import { registerParamNames, registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { makeDays } from './support/make.js';

registerScalar('make_date', {
  args: ['int4', 'int4', 'int4'],
  returns: T.date,
  fn: (_c: EvalContext, y: number, m: number, d: number) => makeDays(y, m, d),
});
registerParamNames('make_date', ['year', 'month', 'day']);
