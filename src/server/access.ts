/**
 * The privileges a server grants its clients, from its options: nothing beyond reading unless a
 * flag says so. Both listeners build their sessions' policy here, so the two ports cannot differ.
 */
import { AccessPolicy, SERVER_SETTINGS } from '../api/access-policy.js';

export interface ServerGrants {
  /** DDL, DML, COPY FROM, COPY TO a file (quire serve --allow-writes). Default false. */
  allowWrites?: boolean;
  /** Directories SQL may open files in (quire serve --allow-files DIR). Default: none. */
  allowFiles?: readonly string[];
}

export function serverAccess(g: ServerGrants): AccessPolicy {
  return new AccessPolicy({ allowWrites: g.allowWrites === true, allowFiles: g.allowFiles ?? [], lockedSettings: SERVER_SETTINGS });
}
