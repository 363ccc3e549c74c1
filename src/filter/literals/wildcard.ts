/**
 * Wildcard patterns for `wildcard`, `strict wildcard` and `wildcard_replace`:
 * `*` matches any run of bytes, `\*` and `\\` are a literal star and backslash.
 * Matching is a left-to-right search of the literal pieces between stars, so it
 * takes time linear in the value for each piece (no backtracking).
 */
import { asciiLower } from '../language';

export interface CompiledWildcard {
  matches(value: string): boolean;
  /** What each `*` matched, or undefined when the value does not match. */
  captures(value: string): string[] | undefined;
}

type Pieces = { ok: true; pieces: string[] } | { ok: false; reason: string };

/** Splits a pattern (binary string) into the literal pieces around its stars. */
function split(pattern: string): Pieces {
  const pieces: string[] = [];
  let piece = '';
  let afterStar = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) {
        return { ok: false, reason: `invalid wildcard: wildcard syntax error at position ${i}: incomplete escape sequence at the end of the wildcard` };
      }
      if (next !== '*' && next !== '\\') {
        return { ok: false, reason: `invalid wildcard: wildcard syntax error at position ${i}: invalid escape sequence` };
      }
      piece += next;
      i++;
      afterStar = false;
    } else if (char === '*') {
      if (afterStar) return { ok: false, reason: 'wildcard contains a double star' };
      pieces.push(piece);
      piece = '';
      afterStar = true;
    } else {
      piece += char;
      afterStar = false;
    }
  }
  pieces.push(piece);
  return { ok: true, pieces };
}

export function wildcardProblem(pattern: string): string | undefined {
  const result = split(pattern);
  return result.ok ? undefined : result.reason;
}

/** Compiles a pattern already checked with `wildcardProblem`. */
export function compileWildcard(pattern: string, caseSensitive: boolean): CompiledWildcard {
  const result = split(pattern);
  if (!result.ok) throw new Error(result.reason);
  const fold = caseSensitive ? (s: string) => s : asciiLower;
  const pieces = result.pieces.map(fold);
  const first = pieces[0] ?? '';
  const last = pieces[pieces.length - 1] ?? '';

  /** Start offsets of the pieces between the first and the last, or undefined. */
  const locate = (value: string): number[] | undefined => {
    if (pieces.length === 1) return value === first ? [] : undefined;
    if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return undefined;
    const limit = value.length - last.length;
    const starts: number[] = [];
    let at = first.length;
    for (let i = 1; i < pieces.length - 1; i++) {
      const piece = pieces[i] ?? '';
      const found = value.indexOf(piece, at);
      if (found === -1 || found + piece.length > limit) return undefined;
      starts.push(found);
      at = found + piece.length;
    }
    return starts;
  };

  return {
    matches: (value) => locate(fold(value)) !== undefined,
    captures(value) {
      const starts = locate(fold(value));
      if (!starts) return undefined;
      const captures: string[] = [];
      let at = first.length;
      starts.forEach((start, i) => {
        captures.push(value.slice(at, start));
        at = start + (pieces[i + 1] ?? '').length;
      });
      if (pieces.length > 1) captures.push(value.slice(at, value.length - last.length));
      return captures;
    },
  };
}
