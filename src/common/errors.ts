/**
 * Every failure a user can cause surfaces as a QuireError: a PostgreSQL SQLSTATE, a message,
 * and (when known) a 1-based character position in the SQL text, as PostgreSQL reports it.
 */
export class QuireError extends Error {
  readonly code: string;
  /** 1-based character offset into the statement text, 0 when unknown. */
  position: number;
  readonly detail?: string;
  readonly hint?: string;

  constructor(code: string, message: string, opts: { position?: number; detail?: string; hint?: string } = {}) {
    super(message);
    this.name = 'QuireError';
    this.code = code;
    this.position = opts.position ?? 0;
    if (opts.detail !== undefined) this.detail = opts.detail;
    if (opts.hint !== undefined) this.hint = opts.hint;
  }
}

/** Positions in libpg-query are 0-based byte offsets into the statement; PostgreSQL reports 1-based characters. */
export function positionOf(location: number | undefined): number {
  return location === undefined || location < 0 ? 0 : location + 1;
}

export const SQLSTATE = {
  syntaxError: '42601',
  undefinedTable: '42P01',
  undefinedColumn: '42703',
  undefinedFunction: '42883',
  ambiguousColumn: '42702',
  duplicateTable: '42P07',
  duplicateColumn: '42701',
  datatypeMismatch: '42804',
  groupingError: '42803',
  windowingError: '42P20',
  invalidColumnReference: '42P10',
  cannotCoerce: '42846',
  featureNotSupported: '0A000',
  divisionByZero: '22012',
  numericValueOutOfRange: '22003',
  invalidTextRepresentation: '22P02',
  invalidDatetimeFormat: '22007',
  datetimeFieldOverflow: '22008',
  stringDataRightTruncation: '22001',
  invalidParameterValue: '22023',
  invalidRowCountInLimit: '2201W',
  invalidRowCountInResultOffset: '2201X',
  invalidArgumentForNtile: '22014',
  invalidArgumentForNthValue: '22016',
  invalidPrecedingOrFollowingSize: '22013',
  nullValueNotAllowed: '22004',
  cardinalityViolation: '21000',
  invalidCursorName: '34000',
  duplicateCursor: '42P03',
  invalidCursorState: '24000',
  undefinedObject: '42704',
  undefinedParameter: '42P02',
  notNullViolation: '23502',
  uniqueViolation: '23505',
  outOfMemory: '53200',
  diskFull: '53100',
  queryCanceled: '57014',
  internalError: 'XX000',
  invalidName: '42602',
  undefinedFile: '58P01',
  ioError: '58030',
  invalidEscapeSequence: '22025',
  invalidRegularExpression: '2201B',
  stringDataLengthMismatch: '22026',
  characterNotInRepertoire: '22021',
  invalidSqlStatementName: '26000',
  activeSqlTransaction: '25001',
  noActiveSqlTransaction: '25P01',
  invalidTransactionState: '25000',
  insufficientPrivilege: '42501',
  invalidAuthorization: '28P01',
  protocolViolation: '08P01',
  programLimitExceeded: '54000',
  wrongObjectType: '42809',
  invalidTableDefinition: '42P16',
  invalidRecursion: '42P19',
  invalidCursorDefinition: '42P11',
} as const;

export function err(code: string, message: string, position?: number, extra: { detail?: string; hint?: string } = {}): QuireError {
  return new QuireError(code, message, { position, ...extra });
}
