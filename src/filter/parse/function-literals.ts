/**
 * Checks of literal function arguments beyond their type: patterns must
 * compile, replacements may only name captures that exist, option strings may
 * only hold known letters. Each check returns the reason a value is refused.
 */
import { type Argument, type BytesLiteral, type IntLiteral, binaryToUtf8 } from '../language';
import { compileDialectRegex, regexProblem, wildcardProblem } from '../literals';

type Literal = BytesLiteral | IntLiteral;
type Check = (value: Literal, earlier: readonly Argument[]) => string | undefined;

const REFERENCE = /\$\{(\d+)\}/g;

function text(value: Argument | undefined): string | undefined {
  return value?.kind === 'bytes' ? binaryToUtf8(value.value) : undefined;
}

function optionLetters(allowed: string): Check {
  return (value) => {
    const options = text(value) ?? '';
    return new RegExp(`^[${allowed}]*$`).test(options) ? undefined : `only the letters "${allowed}" are allowed`;
  };
}

/** Replacement text may name `${1}`..`${available}` (and `${0}` for the whole match when `withWhole`). */
function replacementProblem(replacement: string, available: number, withWhole: boolean): string | undefined {
  const references = [...replacement.matchAll(REFERENCE)].map((m) => Number(m[1]));
  if (references.length > 8) return 'at most 8 replacement references are allowed';
  const bad = references.find((n) => n > available || (n === 0 && !withWhole));
  return bad === undefined ? undefined : `reference \${${bad}} names a capture that does not exist`;
}

function groupCount(pattern: string): number {
  return compileDialectRegex(pattern).groupCount();
}

function starCount(pattern: string): number {
  return pattern.replace(/\\[\\*]/g, '').split('*').length - 1;
}

/** Checks keyed by function name, then argument index. */
const CHECKS: Readonly<Record<string, Readonly<Record<number, Check>>>> = {
  regex_replace: {
    1: (value) => regexProblem(text(value) ?? ''),
    2: (value, earlier) => {
      const pattern = text(earlier[1]);
      return pattern === undefined ? undefined : replacementProblem(text(value) ?? '', groupCount(pattern), true);
    },
  },
  wildcard_replace: {
    1: (value) => (value.kind === 'bytes' ? wildcardProblem(value.value) : undefined),
    2: (value, earlier) => {
      const pattern = earlier[1];
      return pattern?.kind === 'bytes' ? replacementProblem(text(value) ?? '', starCount(pattern.value), false) : undefined;
    },
    3: optionLetters('s'),
  },
  url_decode: { 1: optionLetters('ru') },
  is_timed_hmac_valid_v0: { 5: optionLetters('s') },
};

/** The reason a literal argument is refused, if it is; `earlier` are the arguments before it. */
export function literalArgumentProblem(
  functionName: string,
  index: number,
  value: Literal,
  earlier: readonly Argument[],
): string | undefined {
  return CHECKS[functionName]?.[index]?.(value, earlier);
}
