/** Printing: a tree back to an expression's text, which parses to the same tree. */
export * from './formatter';
