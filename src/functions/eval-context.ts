/** What a function may read of the running statement: session settings and statement-stable values. */
export interface EvalContext {
  /** Session TimeZone setting: 'UTC', an IANA name, or a POSIX-style offset such as 'PST8PDT' or '+02'. */
  readonly timezone: string;
  /** Statement start, microseconds since 1970-01-01 UTC (now(), current_timestamp). */
  readonly statementTime: number;
  /** Transaction start (same as statementTime outside explicit transactions). */
  readonly transactionTime: number;
  /** Seeded per session so setseed() works; returns [0, 1). */
  random(): number;
  setSeed(seed: number): void;
  /** Session settings visible to current_setting(). */
  setting(name: string): string | undefined;
  /**
   * Text output settings, read by formatValue when a value is cast or concatenated to text inside SQL
   * (as PostgreSQL's output functions read them): extra_float_digits, DateStyle, IntervalStyle.
   */
  readonly extraFloatDigits?: number;
  readonly dateStyle?: string;
  readonly intervalStyle?: string;
  /** File confinement of the session; undefined = unconfined. */
  readonly files?: FileGate;
  /** The session's view of sequences (nextval, currval, setval, lastval); absent where there are none. */
  readonly sequences?: SequenceAccess;
}

/** Sequence functions as a session sees them: the counters are shared, currval/lastval are the session's. */
export interface SequenceAccess {
  nextval(name: string): number;
  currval(name: string): number;
  setval(name: string, value: number | bigint, isCalled: boolean): void;
  lastval(): number;
}

/**
 * Where SQL may open files (src/storage/file-access.ts). Absent: anywhere the process may (library
 * and CLI default). Present: paths are resolved and confined, and refusals are 42501.
 */
export interface FileGate {
  /** Real paths of the files a path or glob (unless `literal`) names; throws 42501 outside, 58P01 when missing inside. */
  resolveRead(pattern: string, literal?: boolean): string[];
  /** The real path to write; throws 42501 outside. */
  resolveWrite(file: string): string;
}
