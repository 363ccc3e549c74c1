/**
 * The one error the language reports, formatted as the platform's engine does:
 *
 *     Filter parsing error (LINE:COL):
 *     <the offending line>
 *     <COL-1 spaces>^^^ <reason>
 *
 * LINE and COL are 1-based and count characters (code points); the carets cover
 * the failing span, cut at the end of its line, and are never fewer than one.
 * The reason is one line: line breaks quoted from the input are escaped.
 */

/** Offsets into the expression as JavaScript indexes, end exclusive. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export class FilterError extends Error {
  override readonly name = 'FilterError';
  readonly line: number;
  readonly column: number;
  readonly reason: string;

  constructor(
    readonly expression: string,
    readonly span: Span,
    reason: string,
  ) {
    const located = locate(expression, span);
    const oneLine = reason.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
    super(
      `Filter parsing error (${located.line}:${located.column}):\n` +
        `${located.text}\n${' '.repeat(located.column - 1)}${'^'.repeat(located.carets)} ${oneLine}`,
    );
    this.reason = oneLine;
    this.line = located.line;
    this.column = located.column;
  }
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

function locate(expression: string, span: Span) {
  const lineStart = expression.lastIndexOf('\n', span.start - 1) + 1;
  const newline = expression.indexOf('\n', span.start);
  const end = newline === -1 ? expression.length : newline;
  // The line is shown without its terminator, CR LF as well as LF.
  const lineEnd = end > lineStart && expression[end - 1] === '\r' ? end - 1 : end;
  const line = countNewlines(expression, lineStart) + 1;
  const caretEnd = Math.min(Math.max(span.end, span.start), lineEnd);
  return {
    line,
    column: codePoints(expression.slice(lineStart, span.start)) + 1,
    text: expression.slice(lineStart, lineEnd),
    carets: Math.max(1, codePoints(expression.slice(span.start, caretEnd))),
  };
}

function countNewlines(text: string, before: number): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < before; i = text.indexOf('\n', i + 1)) count++;
  return count;
}
