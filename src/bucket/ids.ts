import { randomBytes } from 'node:crypto';

/** Random and unique per upload of a key. */
export const newVersion = () => randomBytes(16).toString('hex');

/** Opaque, unguessable: an upload id is the only handle on an upload. */
export const newUploadId = () => randomBytes(24).toString('base64url');
