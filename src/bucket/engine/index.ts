/**
 * The storage engines' one interface, the columns the stored engines share, and the engine in
 * memory (the disk and PostgreSQL engines have folders of their own).
 */
export * from './engine';
export * from './memory-engine';
export * from './object-columns';
export * from './sorted-keys';
export * from './classified';
