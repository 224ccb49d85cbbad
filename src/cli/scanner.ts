/**
 * Splits psql input into SQL statements and backslash meta-commands the way psql's lexer
 * (psqlscan.l) does: a statement ends at a semicolon outside quotes, comments and parentheses;
 * a backslash outside quotes starts a meta-command that runs to the end of the line.
 *
 * Input arrives a line at a time (REPL, scripts), so the lexer state survives between lines.
 */

export type ScanItem =
  | {
      readonly kind: 'sql';
      readonly text: string;
      /** 1-based input line of the terminating ';' (psql's "psql:FILE:LINE:" error prefix). */
      readonly line: number;
      /** Character offset of the statement's first character in the whole input. */
      readonly offset: number;
    }
  | {
      readonly kind: 'meta';
      readonly command: string;
      readonly args: string[];
      readonly line: number;
      /** The text after the command word, unsplit (\copy takes COPY's own syntax). */
      readonly raw: string;
    };

/** psql variables, for :name, :'name' and :"name" in SQL text. */
export type VariableLookup = (name: string) => string | undefined;

/** What the unfinished input is inside of, for psql's %R prompt character. */
export type Continuation = '-' | "'" | '"' | '$' | '*' | '(';

type Quote = 'none' | 'single' | 'escape' | 'double' | 'dollar' | 'comment';

const isIdentStart = (c: string): boolean => /[A-Za-z_\u0080-\uffff]/.test(c);
const isIdentChar = (c: string): boolean => /[A-Za-z0-9_$\u0080-\uffff]/.test(c);

export class StatementScanner {
  private buf = '';
  private quote: Quote = 'none';
  private dollarTag = '';
  private commentDepth = 0;
  private parenDepth = 0;
  private bufStart = 0;

  constructor(private readonly variables?: VariableLookup) {}

  /** True when part of a statement has been entered (the REPL then shows the continuation prompt). */
  get pending(): boolean {
    return this.buf.length > 0;
  }

  get continuation(): Continuation {
    switch (this.quote) {
      case 'single':
      case 'escape':
        return "'";
      case 'double':
        return '"';
      case 'dollar':
        return '$';
      case 'comment':
        return '*';
      default:
        return this.parenDepth > 0 ? '(' : '-';
    }
  }

  /** The unfinished statement text (what psql's \g or end-of-script would send). */
  get buffer(): string {
    return this.buf;
  }

  /** Discard the unfinished statement (\r, Ctrl-C). */
  reset(): void {
    this.buf = '';
    this.quote = 'none';
    this.dollarTag = '';
    this.commentDepth = 0;
    this.parenDepth = 0;
  }

  /** Offset of the unfinished statement's first character in the whole input. */
  get bufferOffset(): number {
    return this.bufStart;
  }

  /**
   * Scan one input line (without its newline). lineOffset is the line's character offset in the
   * whole input, so statements can report where they start.
   */
  pushLine(line: string, lineNo: number, lineOffset = 0): ScanItem[] {
    const items: ScanItem[] = [];
    // psql joins the lines of a statement with newlines.
    if (this.buf.length > 0) this.buf += '\n';
    let i = 0;
    const n = line.length;
    while (i < n) {
      if (this.buf.length === 0) this.bufStart = lineOffset + i;
      const c = line[i];
      switch (this.quote) {
        case 'single':
        case 'escape': {
          if (this.quote === 'escape' && c === '\\' && i + 1 < n) {
            this.buf += line.slice(i, i + 2);
            i += 2;
            continue;
          }
          this.buf += c;
          i++;
          if (c === "'") {
            // A doubled quote is an escaped quote, not the end of the literal.
            if (line[i] === "'") {
              this.buf += "'";
              i++;
            } else this.quote = 'none';
          }
          continue;
        }
        case 'double':
          this.buf += c;
          i++;
          if (c === '"') {
            if (line[i] === '"') {
              this.buf += '"';
              i++;
            } else this.quote = 'none';
          }
          continue;
        case 'dollar': {
          if (c === '$' && line.startsWith(this.dollarTag, i)) {
            this.buf += this.dollarTag;
            i += this.dollarTag.length;
            this.quote = 'none';
          } else {
            this.buf += c;
            i++;
          }
          continue;
        }
        case 'comment':
          if (c === '*' && line[i + 1] === '/') {
            this.buf += '*/';
            i += 2;
            if (--this.commentDepth === 0) this.quote = 'none';
          } else if (c === '/' && line[i + 1] === '*') {
            this.buf += '/*';
            i += 2;
            this.commentDepth++;
          } else {
            this.buf += c;
            i++;
          }
          continue;
        case 'none':
          break;
      }

      // Outside quotes and comments.
      if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
        // Leading whitespace of a statement is not part of it (psql drops it too).
        if (this.buf.length > 0) this.buf += c;
        i++;
      } else if (c === '-' && line[i + 1] === '-') {
        // A line comment; psql keeps it only inside a statement, like whitespace.
        if (this.buf.length > 0) this.buf += line.slice(i);
        i = n;
      } else if (c === '/' && line[i + 1] === '*') {
        this.quote = 'comment';
        this.commentDepth = 1;
        this.buf += '/*';
        i += 2;
      } else if (c === "'") {
        const prev = this.buf[this.buf.length - 1] ?? '';
        const prev2 = this.buf[this.buf.length - 2] ?? '';
        this.quote = (prev === 'e' || prev === 'E') && !isIdentChar(prev2) ? 'escape' : 'single';
        this.buf += c;
        i++;
      } else if (c === '"') {
        this.quote = 'double';
        this.buf += c;
        i++;
      } else if (c === '$') {
        const prev = this.buf[this.buf.length - 1] ?? '';
        const m = isIdentChar(prev) ? null : /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(line.slice(i));
        if (m !== null && (m[0].length === 2 || isIdentStart(m[0][1]))) {
          this.quote = 'dollar';
          this.dollarTag = m[0];
          this.buf += m[0];
          i += m[0].length;
        } else {
          this.buf += c;
          i++;
        }
      } else if (c === '(') {
        this.parenDepth++;
        this.buf += c;
        i++;
      } else if (c === ')') {
        if (this.parenDepth > 0) this.parenDepth--;
        this.buf += c;
        i++;
      } else if (c === ':' && line[i + 1] === ':') {
        // A cast, not a variable.
        this.buf += '::';
        i += 2;
      } else if (c === ':' && this.variables !== undefined && interpolation(line, i, this.variables) !== null) {
        const [text, length] = interpolation(line, i, this.variables)!;
        this.buf += text;
        i += length;
      } else if (c === ';' && this.parenDepth === 0) {
        this.buf += c;
        i++;
        items.push({ kind: 'sql', text: this.buf, line: lineNo, offset: this.bufStart });
        this.buf = '';
      } else if (c === '\\') {
        // A meta-command runs to the end of the line; "\\" ends it early, as in psql.
        const rest = line.slice(i + 1);
        const sepAt = rest.indexOf('\\\\');
        const body = sepAt >= 0 ? rest.slice(0, sepAt) : rest;
        const words = splitMetaArgs(body);
        const command = words.shift() ?? '';
        const raw = body.replace(/^\S*\s*/, '');
        items.push({ kind: 'meta', command, args: words, line: lineNo, raw });
        i = sepAt >= 0 ? i + 1 + sepAt + 2 : n;
      } else {
        this.buf += c;
        i++;
      }
    }
    return items;
  }
}

/**
 * psql's variable interpolation at `line[i]` (a ':'): `:name` is the value as is, `:'name'` a string
 * literal, `:"name"` a quoted identifier. Null when no variable of that name is set: psql then leaves
 * the text alone (`:x` stays `:x`).
 */
export function interpolation(line: string, i: number, lookup: VariableLookup): [string, number] | null {
  const m = /^:(?:'([A-Za-z0-9_]+)'|"([A-Za-z0-9_]+)"|([A-Za-z0-9_]+))/.exec(line.slice(i));
  if (m === null) return null;
  const value = lookup(m[1] ?? m[2] ?? m[3]!);
  if (value === undefined) return null;
  if (m[1] !== undefined) return [`'${value.replace(/'/g, "''")}'`, m[0].length];
  if (m[2] !== undefined) return [`"${value.replace(/"/g, '""')}"`, m[0].length];
  return [value, m[0].length];
}

/** Meta-command arguments: whitespace-separated, single-quoted words may contain spaces. */
export function splitMetaArgs(s: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^']|'')*)'|(\S+)/g;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    out.push(m[1] !== undefined ? m[1].replace(/''/g, "'") : m[2]);
  }
  return out;
}

/** Split a complete text into statements with their character offsets (for -c strings). */
export function splitStatements(text: string): { text: string; offset: number }[] {
  const out: { text: string; offset: number }[] = [];
  const scanner = new StatementScanner();
  let lineStart = 0;
  text.split('\n').forEach((line, idx) => {
    for (const it of scanner.pushLine(line, idx + 1, lineStart)) {
      if (it.kind === 'sql') out.push({ text: it.text, offset: it.offset });
    }
    lineStart += line.length + 1;
  });
  // Like psql at the end of a script, an unterminated last statement is still a statement.
  if (scanner.buffer.trim() !== '') out.push({ text: scanner.buffer, offset: scanner.bufferOffset });
  return out;
}
