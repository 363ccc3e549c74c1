/**
 * Parsing: an expression's text into a checked tree, by recursive descent (expressions.ts:
 * logic and precedence; comparison.ts: a field against a value; values.ts and calls.ts: fields,
 * indexes and function calls with their arguments checked against the scheme), within the
 * platform's limits on length and nesting.
 */
export * from './nesting';
export * from './parser';
