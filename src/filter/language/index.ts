/**
 * The language itself, which every stage shares: the tree (ast.ts) and the value types
 * (types.ts), the scheme of fields and functions (scheme.ts, read from scheme.json), errors with
 * their spans, the cursor over an expression's text, byte strings, the operators and their
 * precedence, and the functions some phases refuse.
 */
export * from './ast';
export * from './bytes';
export * from './cursor';
export * from './errors';
export * from './operators';
export * from './phase-functions';
export * from './scheme';
export * from './types';
