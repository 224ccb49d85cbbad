/** Prefix '@': absolute value, the same overloads and overflow errors as abs(). */
import { registerScalar } from '../../registry.js';
import { ABS_OVERLOADS } from '../abs.js';

registerScalar('@', ...ABS_OVERLOADS);
