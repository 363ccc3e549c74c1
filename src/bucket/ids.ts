import { randomBytes } from 'node:crypto';

/** Random and unique per upload of a key. */
export const newVersion = () => randomBytes(16).toString('hex');

/** Opaque, unguessable: an upload id is the only handle on an upload. */
export const newUploadId = () => randomBytes(24).toString('base64url');

/** Random per upload of a part, so a replaced part's old etag is recognisably outdated. */
export const newPartEtag = () => randomBytes(16).toString('hex');
