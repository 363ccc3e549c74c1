/**
 * Evaluation: a checked tree compiled once into a function of a request (evaluator.ts), over the
 * request's field values as given (context.ts) and held at run time (runtime.ts), with the
 * platform's functions (function-library.ts), set and list membership, and `matches`.
 */
export * from './context';
export * from './evaluator';
export * from './membership';
