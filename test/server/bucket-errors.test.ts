// How the management API's bucket routes answer the runtime's "no such bucket" (10006): a bucket
// deleted while a request held it (see test/bucket/postgres-deletion.test.ts for how the runtime
// comes to say it) is a 404, as a bucket missing when the request arrives is.
import { expect, test } from 'vitest';
import { BucketCatalogueError, BucketError } from '../../src/bucket';
import { asApiError } from '../../src/server/buckets/errors';
import { ApiError } from '../../src/server/http/errors';

test('a write refused because its bucket was deleted meanwhile is a 404 with code 10006', () => {
  const answer = asApiError(new BucketError('put', 10006, 'The specified bucket does not exist.'));
  expect(answer).toBeInstanceOf(ApiError);
  expect(answer).toMatchObject({ status: 404, errors: [{ code: 10006, message: 'put: The specified bucket does not exist. (10006)' }] });
  // The same status and code as a bucket missing when the request arrives.
  expect(asApiError(new BucketCatalogueError(10006, 'The specified bucket does not exist: photos.'))).toMatchObject({
    status: 404,
    errors: [{ code: 10006 }],
  });
});
