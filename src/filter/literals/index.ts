/**
 * Literals: each kind read from the text (integers, IP addresses and ranges, regular expressions in
 * the platform's dialect, sets, strings, wildcards), and the values they stand for.
 */
export * from './integers';
export * from './ip-address';
export * from './ip';
export * from './regex';
export * from './sets';
export * from './strings';
export * from './wildcard';
