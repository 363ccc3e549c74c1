/**
 * Objects and uploads encrypted under a customer's key (SSE-C): what checks the key and the IVs
 * of the object's segments (JSON, null for a plain object or upload), and each part's IV.
 */
export const customerKeys = `
alter table bucket_storage.objects add column encryption text;
alter table bucket_storage.uploads add column encryption text;
alter table bucket_storage.parts add column iv text;
`;
