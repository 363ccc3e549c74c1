/** `matches`: an unanchored search with RE2 semantics, linear in the value's length. */
import { RE2JS } from 're2js';

export function compileRegexMatcher(pattern: string): (text: string) => boolean {
  const regex = RE2JS.compile(pattern);
  return (text) => regex.matcher(text).find();
}
