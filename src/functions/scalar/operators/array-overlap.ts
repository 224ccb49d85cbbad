/** a && b: the arrays have an element in common (NULL elements match nothing). */
import { registerScalar } from '../../registry.js';
import { equalValues } from '../../../common/compare.js';
import { elementType } from '../../../common/types.js';
import { arrayPredicate } from '../support/array-support.js';

registerScalar(
  '&&',
  arrayPredicate((a, b, t) => {
    const et = elementType(t);
    return a.some((x) => x !== null && b.some((y) => y !== null && equalValues(x, y, et)));
  }),
);
