/**
 * psql's result printers (src/fe_utils/print.c), reproduced byte for byte for the subset the
 * `quire` command offers: aligned (border 1, the default), unaligned (-A), CSV (--csv), and the
 * expanded (\x) variant of each. Tools and people diff psql output; matching it exactly lets them
 * point the same scripts at quire.
 *
 * The printers work on strings: callers turn values into text first (formatValue), so this
 * module knows nothing about SQL types beyond each column's alignment.
 */

export type Align = 'left' | 'right';

export interface TableColumn {
  readonly name: string;
  /** psql right-aligns numeric columns and left-aligns everything else. */
  readonly align: Align;
}

/** A cell's text, or null for SQL NULL (printed as PrintOptions.nullString). */
export type Cell = string | null;

export type OutputFormat = 'aligned' | 'unaligned' | 'csv';

export interface PrintOptions {
  readonly format: OutputFormat;
  /** psql -x / \x: one "column | value" line per field. */
  readonly expanded: boolean;
  /** psql -t: no header, no title, no footer. */
  readonly tuplesOnly: boolean;
  /** Unaligned field separator (psql -F), default '|'. */
  readonly fieldSep: string;
  /** CSV field separator (psql's csv_fieldsep), default ','. */
  readonly csvFieldSep: string;
  /** Text for NULL (psql -P null=...), default ''. */
  readonly nullString: string;
  /** Printed above the table (\dt's "List of relations"). */
  readonly title?: string;
  /** Replaces the default "(N rows)" footer; [] prints none. */
  readonly footers?: readonly string[];
}

export const DEFAULT_PRINT_OPTIONS: PrintOptions = {
  format: 'aligned',
  expanded: false,
  tuplesOnly: false,
  fieldSep: '|',
  csvFieldSep: ',',
  nullString: '',
};

/** Render a result the way psql prints it to stdout, including the trailing newline(s). */
export function formatTable(columns: readonly TableColumn[], rows: readonly (readonly Cell[])[], options: Partial<PrintOptions> = {}): string {
  const opts: PrintOptions = { ...DEFAULT_PRINT_OPTIONS, ...options };
  const cells = rows.map((r) => columns.map((_c, j) => r[j] ?? opts.nullString));
  switch (opts.format) {
    case 'aligned':
      return opts.expanded ? alignedVertical(columns, cells, opts) : alignedText(columns, cells, opts);
    case 'unaligned':
      return opts.expanded ? unalignedVertical(columns, cells, opts) : unalignedText(columns, cells, opts);
    case 'csv':
      return opts.expanded ? csvVertical(columns, cells, opts) : csvText(columns, cells, opts);
  }
}

/** psql's footers_with_default: "(1 row)" / "(N rows)" unless the caller supplied footers. */
function footersWithDefault(rowCount: number, opts: PrintOptions): readonly string[] {
  if (opts.footers !== undefined) return opts.footers;
  return [rowCount === 1 ? '(1 row)' : `(${rowCount} rows)`];
}

// ---------------------------------------------------------------------------------------------
// Display width and line splitting (print.c's pg_wcssize / pg_wcsformat).

/** Zero-width code points: combining marks and joiners, which psql's ucs_wcwidth counts as 0. */
function isZeroWidth(cp: number): boolean {
  return (
    (cp >= 0x0300 && cp <= 0x036f) ||
    (cp >= 0x0483 && cp <= 0x0489) ||
    (cp >= 0x0591 && cp <= 0x05bd) ||
    (cp >= 0x0610 && cp <= 0x061a) ||
    (cp >= 0x064b && cp <= 0x065f) ||
    (cp >= 0x1ab0 && cp <= 0x1aff) ||
    (cp >= 0x1dc0 && cp <= 0x1dff) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xfe20 && cp <= 0xfe2f) ||
    cp === 0xfeff
  );
}

/** East Asian wide and fullwidth code points, which occupy two terminal columns. */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe6f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** Terminal columns taken by a string without control characters. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (isZeroWidth(cp)) continue;
    w += isWide(cp) ? 2 : 1;
  }
  return w;
}

interface Line {
  readonly text: string;
  readonly width: number;
}

/**
 * Split a cell into display lines as pg_wcsformat does: newlines start a new line, tabs expand
 * to the next multiple of 8, \r prints as the two characters "\r" and other control characters
 * as "\xNN", so that a stray byte cannot corrupt the table layout.
 */
const PLAIN = /^[\x20-\x7e]*$/;

function splitLines(s: string): Line[] {
  // Most cells are printable ASCII: one line, one column per character.
  if (PLAIN.test(s)) return [{ text: s, width: s.length }];
  const out: Line[] = [];
  let text = '';
  let width = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '\n') {
      out.push({ text, width });
      text = '';
      width = 0;
    } else if (ch === '\t') {
      const n = 8 - (width % 8);
      text += ' '.repeat(n);
      width += n;
    } else if (ch === '\r') {
      text += '\\r';
      width += 2;
    } else if (cp < 0x20 || cp === 0x7f) {
      text += `\\x${cp.toString(16).toUpperCase().padStart(2, '0')}`;
      width += 4;
    } else {
      text += ch;
      width += isZeroWidth(cp) ? 0 : isWide(cp) ? 2 : 1;
    }
  }
  out.push({ text, width });
  return out;
}

const SPACES: string[] = Array.from({ length: 64 }, (_v, i) => ' '.repeat(i));
const spaces = (n: number): string => (n <= 0 ? '' : n < SPACES.length ? SPACES[n] : ' '.repeat(n));
const dashes = (n: number): string => (n > 0 ? '-'.repeat(n) : '');

// ---------------------------------------------------------------------------------------------
// Aligned, border 1 (print_aligned_text).

function alignedText(columns: readonly TableColumn[], cells: readonly string[][], opts: PrintOptions): string {
  const ncol = columns.length;
  const headerLines = columns.map((c) => splitLines(c.name));
  // Fast path for the usual all-printable-ASCII, single-line result: no per-cell line objects
  // (a 200,000-row result would otherwise allocate a million of them).
  const plain = cells.every((r) => r.every((c) => PLAIN.test(c)));
  const cellLines = plain ? [] : cells.map((r) => r.map(splitLines));
  const widths = columns.map((_c, j) => {
    // psql leaves headers out of the width computation when it will not print them (-t).
    let w = opts.tuplesOnly ? 0 : Math.max(0, ...headerLines[j].map((l) => l.width));
    if (plain) for (const r of cells) w = Math.max(w, r[j].length);
    else for (const r of cellLines) for (const l of r[j]) if (l.width > w) w = l.width;
    return w;
  });
  let out = '';

  if (cells.length === 0 && opts.tuplesOnly) return '\n';

  if (!opts.tuplesOnly) {
    if (opts.title !== undefined) {
      const totalWidth = widths.reduce((a, b) => a + b, 0) + (ncol > 0 ? ncol * 3 - 1 : 0);
      const tw = displayWidth(opts.title);
      out += tw >= totalWidth ? `${opts.title}\n` : `${spaces(Math.floor((totalWidth - tw) / 2))}${opts.title}\n`;
    }
    // Multi-line headers print one physical line per header line, '+' marking continuation.
    const headerHeight = Math.max(0, ...headerLines.map((h) => h.length));
    for (let ln = 0; ln < headerHeight; ln++) {
      let line = '';
      for (let j = 0; j < ncol; j++) {
        const h = headerLines[j];
        line += ' ';
        if (ln < h.length) {
          const nb = widths[j] - h[ln].width;
          line += spaces(Math.floor(nb / 2)) + h[ln].text + spaces(Math.ceil(nb / 2));
          line += ln + 1 < h.length ? '+' : ' ';
        } else {
          line += spaces(widths[j]) + ' ';
        }
        if (j < ncol - 1) line += '|';
      }
      out += line + '\n';
    }
    out += horizontalLine(widths);
  }

  if (plain && ncol > 0) {
    const right = columns.map((c) => c.align === 'right');
    const chunks: string[] = [out];
    for (const row of cells) {
      let line = '';
      for (let j = 0; j < ncol; j++) {
        const v = row[j];
        if (right[j]) line += ' ' + spaces(widths[j] - v.length) + v;
        else line += j < ncol - 1 ? ' ' + v + spaces(widths[j] - v.length) : ' ' + v;
        if (j < ncol - 1) line += ' |';
      }
      chunks.push(line + '\n');
    }
    out = chunks.join('');
  }
  // With no columns there is nothing to print per row (psql walks the cells, and there are none).
  for (const row of ncol > 0 ? cellLines : []) {
    const height = Math.max(1, ...row.map((c) => c.length));
    for (let ln = 0; ln < height; ln++) {
      let line = '';
      for (let j = 0; j < ncol; j++) {
        const lines = row[j];
        const last = j === ncol - 1;
        // Continuation lines of a multi-line value start with psql's nl_left mark, a space.
        line += ' ';
        const cur = ln < lines.length ? lines[ln] : undefined;
        const continues = ln + 1 < lines.length;
        if (cur === undefined) {
          if (!last) line += spaces(widths[j]);
        } else if (columns[j].align === 'right') {
          line += spaces(widths[j] - cur.width) + cur.text;
        } else {
          line += cur.text;
          if (!last || continues) line += spaces(widths[j] - cur.width);
        }
        if (continues) line += '+';
        else if (!last) line += ' ';
        if (!last) line += '|';
      }
      out += line + '\n';
    }
  }

  if (!opts.tuplesOnly) for (const f of footersWithDefault(cells.length, opts)) out += f + '\n';
  return out + '\n';
}

function horizontalLine(widths: readonly number[]): string {
  return '-' + widths.map(dashes).join('-+-') + '-\n';
}

// ---------------------------------------------------------------------------------------------
// Aligned expanded, border 1 (print_aligned_vertical).

function alignedVertical(columns: readonly TableColumn[], cells: readonly string[][], opts: PrintOptions): string {
  if (cells.length === 0) {
    return opts.tuplesOnly ? '\n' : footersWithDefault(0, opts).map((f) => f + '\n').join('') + '\n';
  }
  const headerLines = columns.map((c) => splitLines(c.name));
  const cellLines = cells.map((r) => r.map(splitLines));
  let hwidth = 0;
  for (const h of headerLines) for (const l of h) hwidth = Math.max(hwidth, l.width);
  let dwidth = 0;
  for (const r of cellLines) for (const c of r) for (const l of c) dwidth = Math.max(dwidth, l.width);

  let out = '';
  if (!opts.tuplesOnly && opts.title !== undefined) out += opts.title + '\n';
  cellLines.forEach((row, i) => {
    if (!opts.tuplesOnly) out += recordLine(i + 1, hwidth, dwidth);
    else if (i > 0) out += recordLine(0, hwidth, dwidth);
    row.forEach((value, j) => {
      const header = headerLines[j];
      const height = Math.max(header.length, value.length);
      for (let ln = 0; ln < height; ln++) {
        const h = header[ln];
        out += h === undefined ? spaces(hwidth) : h.text + spaces(hwidth - h.width);
        out += ln + 1 < header.length ? '+' : ' ';
        out += '|';
        const v = value[ln];
        if (v === undefined) {
          out += ' \n';
          continue;
        }
        out += ' ' + v.text;
        if (ln + 1 < value.length) out += spaces(dwidth - v.width) + '+';
        out += '\n';
      }
    });
  });
  // Expanded mode has no "(N rows)" footer by default, only caller-supplied ones.
  if (!opts.tuplesOnly && opts.footers !== undefined && opts.footers.length > 0) {
    out += '\n' + opts.footers.map((f) => f + '\n').join('');
  }
  return out + '\n';
}

/** print_aligned_vertical_line: "-[ RECORD n ]" padded with dashes, '+' where the divider falls. */
function recordLine(record: number, hwidth: number, dwidth: number): string {
  let out = '-';
  let reclen = 0;
  if (record > 0) {
    const label = `[ RECORD ${record} ]`;
    out += label;
    reclen = label.length;
  }
  reclen++;
  out += dashes(hwidth - reclen);
  reclen -= hwidth;
  out += reclen-- <= 0 ? '-' : '';
  out += reclen-- <= 0 ? '+' : '';
  out += reclen-- <= 0 ? '-' : '';
  if (reclen < 0) reclen = 0;
  out += dashes(dwidth - reclen);
  return out + '\n';
}

// ---------------------------------------------------------------------------------------------
// Unaligned (print_unaligned_text / print_unaligned_vertical), record separator '\n'.

function unalignedText(columns: readonly TableColumn[], cells: readonly string[][], opts: PrintOptions): string {
  const records: string[] = [];
  if (!opts.tuplesOnly) {
    if (opts.title !== undefined) records.push(opts.title);
    records.push(columns.map((c) => c.name).join(opts.fieldSep));
  }
  for (const r of cells) records.push(r.join(opts.fieldSep));
  if (!opts.tuplesOnly) records.push(...footersWithDefault(cells.length, opts));
  return records.length === 0 ? '' : records.join('\n') + '\n';
}

function unalignedVertical(columns: readonly TableColumn[], cells: readonly string[][], opts: PrintOptions): string {
  let out = '';
  let needSep = false;
  if (!opts.tuplesOnly && opts.title !== undefined) {
    out += opts.title;
    needSep = true;
  }
  for (const r of cells) {
    // Records are separated by an empty line: two record separators in a row.
    if (needSep) out += '\n\n';
    out += r.map((v, j) => columns[j].name + opts.fieldSep + v).join('\n');
    needSep = true;
  }
  if (!opts.tuplesOnly && opts.footers !== undefined && opts.footers.length > 0) {
    out += '\n' + opts.footers.map((f) => '\n' + f).join('');
    needSep = true;
  }
  return needSep ? out + '\n' : out;
}

// ---------------------------------------------------------------------------------------------
// CSV (print_csv_text / print_csv_vertical).

/** csv_print_field: quote when the value could be misread (separator, quote, newline, "\."). */
export function csvField(s: string, sep: string): string {
  if (s.includes(sep) || /[\r\n"]/.test(s) || s === '\\.' || sep === '\\' || sep === '.') {
    return '"' + s.replace(/"/g, '""') + '"';
  }
  return s;
}

function csvText(columns: readonly TableColumn[], cells: readonly string[][], opts: PrintOptions): string {
  const sep = opts.csvFieldSep;
  let out = '';
  if (!opts.tuplesOnly) out += columns.map((c) => csvField(c.name, sep)).join(sep) + '\n';
  for (const r of cells) out += r.map((v) => csvField(v, sep)).join(sep) + '\n';
  return out;
}

function csvVertical(columns: readonly TableColumn[], cells: readonly string[][], opts: PrintOptions): string {
  const sep = opts.csvFieldSep;
  let out = '';
  for (const r of cells) r.forEach((v, j) => (out += csvField(columns[j].name, sep) + sep + csvField(v, sep) + '\n'));
  return out;
}
