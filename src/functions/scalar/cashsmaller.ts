/** cashsmaller(money, money): the smaller amount (PostgreSQL's min(money) transition function). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Money } from '../../common/money.js';

registerScalar('cashsmaller', { args: ['money', 'money'], returns: T.money, fn: (_c: EvalContext, a: Money, b: Money) => (a < b ? a : b) });
