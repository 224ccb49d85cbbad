/** a @> b: every element of b is in a (a NULL element matches nothing). */
import { registerScalar } from '../../registry.js';
import { arrayPredicate, containsAll } from '../support/array-support.js';

registerScalar('@>', arrayPredicate((a, b, t) => containsAll(a, b, t)));
