/**
 * Customer-provided keys (SSE-C): the key's check and data key, and the AES-CTR cipher over stored
 * bytes.
 */
export * from './ctr-cipher';
export * from './customer-key';
