/**
 * gen_random_uuid(): a version 4 UUID from the system's strong random source, as PostgreSQL's (not
 * the session's random(), so setseed() does not make it repeatable). Quire has no uuid type, so the
 * result is its canonical text form; comparisons and casts therefore follow text rules.
 */
import { randomUUID } from 'node:crypto';
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';

registerScalar('gen_random_uuid', { args: [], returns: T.text, volatile: true, fn: () => randomUUID() });
