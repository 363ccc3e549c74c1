/**
 * What every part of the bucket shares: its errors, object keys and their order, limits, ids, an
 * object's HTTP metadata, byte ranges.
 */
export * from './errors';
export * from './ids';
export * from './keys';
export * from './limits';
export * from './metadata';
export * from './range';
