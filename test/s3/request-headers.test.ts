// The endpoint reads a request's headers into a Map rather than WHATWG Headers; it must answer
// every question the way Headers would for the same raw lines.
import { describe, expect, it } from 'vitest';
import { RequestHeaders } from '../../src/s3/request-headers';
import { S3Error } from '../../src/s3/errors';

const RAW = [
  'Host', 'bucket.example',
  'X-Amz-Meta-Colour', '  blue ',
  'x-amz-meta-colour', 'green',
  'Content-Type', 'text/plain',
  'x-amz-meta-empty', '',
  'If-Match', '"a"\t',
  'if-match', '"b"',
];

function asHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

describe('RequestHeaders', () => {
  it('answers get, has and iteration as Headers does for the same lines', () => {
    const ours = new RequestHeaders(RAW);
    const theirs = asHeaders(RAW);
    for (const name of ['host', 'HOST', 'x-amz-meta-colour', 'X-AMZ-META-COLOUR', 'content-type', 'x-amz-meta-empty', 'if-match', 'absent']) {
      expect({ name, value: ours.get(name), has: ours.has(name) }).toEqual({ name, value: theirs.get(name), has: theirs.has(name) });
    }
    expect([...ours]).toEqual([...theirs]);
    expect([...ours]).toEqual([
      ['content-type', 'text/plain'],
      ['host', 'bucket.example'],
      ['if-match', '"a", "b"'],
      ['x-amz-meta-colour', 'blue, green'],
      ['x-amz-meta-empty', ''],
    ]);
  });

  it('keeps the names lower-case in the order sent, a repeated name twice', () => {
    expect(new RequestHeaders(RAW).names).toEqual(['host', 'x-amz-meta-colour', 'x-amz-meta-colour', 'content-type', 'x-amz-meta-empty', 'if-match', 'if-match']);
  });

  it('refuses a value HTTP forbids with InvalidArgument naming the header', () => {
    const refusal = (() => {
      try {
        new RequestHeaders(['X-Amz-Meta-Bad', 'one\0two']);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(S3Error);
    expect({ code: (refusal as S3Error).code, message: (refusal as S3Error).message }).toEqual({
      code: 'InvalidArgument',
      message: 'The header X-Amz-Meta-Bad has a value that is not valid in HTTP.',
    });
  });
});
