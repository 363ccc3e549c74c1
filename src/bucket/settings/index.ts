/**
 * A bucket's settings: the runtime settings, CORS rules, lifecycle rules and the expiry of objects
 * they cause.
 */
export * from './cors';
export * from './lifecycle';
export * from './object-expiry';
export * from './settings';
