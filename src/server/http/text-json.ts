/**
 * JSON sent as `text/plain`: wrangler posts some bodies (bucket creation) without a content
 * type, so its fetch labels them `text/plain;charset=UTF-8`, and the real service reads them as
 * JSON. The document declares `text/plain` beside `application/json` only where that happens;
 * the validator still refuses it everywhere else.
 */
export const isPlainText = (contentType: string | undefined) => /^text\/plain\b/i.test(contentType ?? '');
