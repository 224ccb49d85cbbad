/** a <@ b: every element of a is in b (a NULL element matches nothing). */
import { registerScalar } from '../../registry.js';
import { arrayPredicate, containsAll } from '../support/array-support.js';

registerScalar('<@', arrayPredicate((a, b, t) => containsAll(b, a, t)));
