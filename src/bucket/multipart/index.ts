/**
 * Multipart uploads: part numbers and the completion's checks, and the uploads themselves.
 */
export * from './multipart';
export * from './uploads';
