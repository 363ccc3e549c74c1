/**
 * The S3 checksum a multipart upload was created with and each part's (JSON, null when none):
 * what a completed upload's checksum is made from.
 */
export const flexibleChecksums = `
alter table bucket_storage.uploads add column checksum text;
alter table bucket_storage.parts add column checksum text;
`;
