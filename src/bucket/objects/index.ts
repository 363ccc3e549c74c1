/**
 * Objects written and read: the bytes of a write (one source from the caller to the engine),
 * streams of known length, receiving with the hashes checked, preconditions, the stored object as
 * a result.
 */
export * from './body-source';
export * from './checksums';
export * from './conditional';
export * from './known-length';
export * from './receive';
export * from './stored-object';
