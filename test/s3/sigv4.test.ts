// The canonical request, the string to sign and the signature, against AWS's published example
// and against forms that need encoding (the plain forms take a shorter way to the same text).
import { createSecretKey } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { canonicalRequest, sign, signingKey, stringToSign, type SignedParts } from '../../src/s3/sigv4';

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

function parts(rawPath: string, headers: [string, string][], query: [string, string][] = []): SignedParts {
  return { method: 'GET', rawPath, query, headers: new Headers(headers) };
}

describe('SigV4', () => {
  test("AWS's example GET of /test.txt with a Range header signs as AWS documents it", () => {
    const request = parts('/test.txt', [
      ['host', 'examplebucket.s3.amazonaws.com'],
      ['range', 'bytes=0-9'],
      ['x-amz-content-sha256', EMPTY_SHA256],
      ['x-amz-date', '20130524T000000Z'],
    ]);
    const signed = ['host', 'range', 'x-amz-content-sha256', 'x-amz-date'];
    const canonical = canonicalRequest(request, signed, EMPTY_SHA256);
    expect(canonical).toBe(
      [
        'GET',
        '/test.txt',
        '',
        'host:examplebucket.s3.amazonaws.com',
        'range:bytes=0-9',
        `x-amz-content-sha256:${EMPTY_SHA256}`,
        'x-amz-date:20130524T000000Z',
        '',
        'host;range;x-amz-content-sha256;x-amz-date',
        EMPTY_SHA256,
      ].join('\n'),
    );
    const key = createSecretKey(signingKey('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', '20130524', 'us-east-1', 's3'));
    const text = stringToSign('20130524T000000Z', '20130524/us-east-1/s3/aws4_request', canonical);
    expect(sign(key, text)).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
  });

  test('path segments, query parameters and header values are put in canonical form', () => {
    const request = parts(
      "/bucket/a%20b/caf%C3%A9/it's(1)*!",
      [
        ['host', 'localhost'],
        // Header values arrive as Latin-1 text of their bytes: "é" sent as UTF-8 is two of them.
        ['x-amz-meta-note', '  caf\u00c3\u00a9   au \t lait  '],
        ['x-amz-meta-plain', 'one two'],
      ],
      [
        ['prefix', 'a b/c'],
        ['list-type', '2'],
        ['marker', "~x_y.z-'"],
      ],
    );
    const canonical = canonicalRequest(request, ['host', 'x-amz-meta-note', 'x-amz-meta-plain'], 'UNSIGNED-PAYLOAD');
    expect(canonical.split('\n')).toEqual([
      'GET',
      '/bucket/a%20b/caf%C3%A9/it%27s%281%29%2A%21',
      'list-type=2&marker=~x_y.z-%27&prefix=a%20b%2Fc',
      'host:localhost',
      'x-amz-meta-note:café au lait',
      'x-amz-meta-plain:one two',
      '',
      'host;x-amz-meta-note;x-amz-meta-plain',
      'UNSIGNED-PAYLOAD',
    ]);
  });

  test('a path sent with unreserved characters percent-encoded is signed in its canonical form', () => {
    const canonical = canonicalRequest(parts('/bucket/%61bc/x~y', [['host', 'h']]), ['host'], 'UNSIGNED-PAYLOAD');
    expect(canonical.split('\n')[1]).toBe('/bucket/abc/x~y');
  });
});
