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
}
