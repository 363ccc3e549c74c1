/** `matches`: an unanchored search with RE2 semantics, linear in the value's length. */
import { compileDialectRegex } from '../literals';

export function compileRegexMatcher(pattern: string): (text: string) => boolean {
  const regex = compileDialectRegex(pattern);
  return (text) => regex.matcher(text).find();
}
