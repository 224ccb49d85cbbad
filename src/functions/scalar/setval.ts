/** setval(sequence, value [, is_called]): positions the sequence; returns the value given. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { sequencesOf } from './nextval.js';

type Int8 = number | bigint;

registerScalar(
  'setval',
  {
    args: ['text', 'int8'],
    returns: T.int8,
    volatile: true,
    fn: (c: EvalContext, name: string, v: Int8) => {
      sequencesOf(c).setval(name, v, true);
      return v;
    },
  },
  {
    args: ['text', 'int8', 'bool'],
    returns: T.int8,
    volatile: true,
    fn: (c: EvalContext, name: string, v: Int8, called: boolean) => {
      sequencesOf(c).setval(name, v, called);
      return v;
    },
  },
);
