// Inputs no SDK sends: malformed documents and URIs, signed aws-chunked streams (good, tampered,
// truncated), payload hashes and lengths that do not match.
import { CreateBucketCommand, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { crc32 } from 'node:zlib';
import { beforeEach, describe, expect, test } from 'vitest';
import { rawFetch, signedChunks, signedHeaders } from './raw-requests';
import { s3Failure, startEndpoint, type Endpoint } from './support';

let endpoint: Endpoint;
let s3: S3Client;
beforeEach(async () => {
  endpoint = await startEndpoint();
  s3 = endpoint.client();
  await s3.send(new CreateBucketCommand({ Bucket: 'raw' }));
});

const errorOf = (xml: string) => ({
  code: /<Code>([^<]*)<\/Code>/.exec(xml)?.[1],
  message: /<Message>([^<]*)<\/Message>/.exec(xml)?.[1],
});
const send = (method: string, target: string, body?: string, headers?: Record<string, string>) =>
  rawFetch(endpoint.server.url, {
    method,
    target,
    ...(body === undefined ? {} : { body }),
    ...(headers ? { headers } : {}),
  });

describe('malformed XML documents', () => {
  test.each([
    ['not XML at all', 'hello'],
    ['unclosed element', '<Delete><Object><Key>a</Key></Object>'],
    ['wrong root', '<Remove><Object><Key>a</Key></Object></Remove>'],
    ['no objects', '<Delete></Delete>'],
    ['an object without a key', '<Delete><Object></Object></Delete>'],
    [
      'a document type declaration',
      '<!DOCTYPE x [<!ENTITY e "boom">]><Delete><Object><Key>&e;</Key></Object></Delete>',
    ],
    ['an empty body', ''],
  ])('DeleteObjects with %s is MalformedXML (400)', async (_, body) => {
    const { response, text } = await send('POST', '/raw?delete', body);
    expect(response.status).toBe(400);
    expect(errorOf(text).code).toBe('MalformedXML');
  });

  test('more than 1000 keys to delete is MalformedXML', async () => {
    const body = `<Delete>${'<Object><Key>k</Key></Object>'.repeat(1001)}</Delete>`;
    const { text } = await send('POST', '/raw?delete', body);
    expect(errorOf(text)).toEqual({
      code: 'MalformedXML',
      message:
        'The XML you provided was not well-formed or did not validate against our published schema: a Delete document names at most 1000 objects, not 1001.',
    });
  });

  test('CompleteMultipartUpload with a malformed or partless document is MalformedXML', async () => {
    const created = await send('POST', '/raw/obj?uploads');
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created.text)![1]!;
    for (const body of [
      '<CompleteMultipartUpload><Part>',
      '<CompleteMultipartUpload/>',
      '<CompleteMultipartUpload><Part><PartNumber>x</PartNumber><ETag>"e"</ETag></Part></CompleteMultipartUpload>',
    ]) {
      const { response, text } = await send('POST', `/raw/obj?uploadId=${encodeURIComponent(uploadId)}`, body);
      expect(response.status, body).toBe(400);
      expect(errorOf(text).code, body).toBe('MalformedXML');
    }
  });
});

describe('request framing', () => {
  test('a path that is not valid percent-encoded UTF-8 is InvalidURI', async () => {
    // Refused before any signature is looked at: there is nothing to check it against.
    const response = await fetch(`${endpoint.server.url}/raw/bad%FFkey`);
    expect(response.status).toBe(400);
    expect(errorOf(await response.text()).code).toBe('InvalidURI');
  });

  test('a body that does not match x-amz-content-sha256 is refused and not stored', async () => {
    const { response, text } = await rawFetch(endpoint.server.url, {
      method: 'PUT',
      target: '/raw/k',
      body: 'actual',
      payloadHash: createHash('sha256').update('claimed').digest('hex'),
    });
    expect(response.status).toBe(400);
    expect(errorOf(text).code).toBe('XAmzContentSHA256Mismatch');
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'raw', Key: 'k' })))).name).toBe('NoSuchKey');
  });

  test('a small body cut off half-way is not stored, and the endpoint goes on serving', async () => {
    const { headers } = signedHeaders(endpoint.server.url, {
      method: 'PUT',
      target: '/raw/cut',
      body: 'x'.repeat(1024),
      payloadHash: 'UNSIGNED-PAYLOAD',
    });
    const { port } = new URL(endpoint.server.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    const head = Object.entries({ ...headers, 'content-length': '1024' })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`PUT /raw/cut HTTP/1.1\r\n${head}\r\n${'x'.repeat(500)}`);
    // The endpoint has the headers and half the body when the client goes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await once(socket, 'close');
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'raw', Key: 'cut' })))).name).toBe('NoSuchKey');
    const { response } = await send('PUT', '/raw/after', 'whole');
    expect(response.status).toBe(200);
  });

  test('a small body whose Content-MD5 does not match is BadDigest, and not stored', async () => {
    const { response, text } = await send('PUT', '/raw/md5', 'actual', {
      'content-md5': createHash('md5').update('claimed').digest('base64'),
    });
    expect(response.status).toBe(400);
    expect(errorOf(text).code).toBe('BadDigest');
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'raw', Key: 'md5' })))).name).toBe('NoSuchKey');
  });

  test('an unknown payload hash marker is InvalidArgument', async () => {
    const { text } = await rawFetch(endpoint.server.url, {
      method: 'PUT',
      target: '/raw/k',
      body: 'x',
      payloadHash: 'SOMETHING-ELSE',
    });
    expect(errorOf(text).code).toBe('InvalidArgument');
  });

  test('an unsupported sub-resource or operation is NotImplemented (501)', async () => {
    const { response, text } = await send('GET', '/raw?acl');
    expect(response.status).toBe(501);
    expect(errorOf(text)).toEqual({
      code: 'NotImplemented',
      message: 'The acl sub-resource is not implemented by this endpoint.',
    });
  });
});

describe('signed aws-chunked streams', () => {
  const chunks = ['first chunk, ', 'second chunk, ', 'last'];
  const decodedLength = chunks.join('').length;

  function streamingPut(
    key: string,
    body: (seed: string, amzDate: string) => string,
    decoded = decodedLength,
    trailer?: string,
  ) {
    const { headers, url, signature, amzDate } = signedHeaders(endpoint.server.url, {
      method: 'PUT',
      target: `/raw/${key}`,
      payloadHash: trailer ? 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER' : 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      headers: {
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': String(decoded),
        'content-type': 'text/plain',
        ...(trailer ? { 'x-amz-trailer': trailer } : {}),
      },
    });
    return fetch(url, { method: 'PUT', headers, body: body(signature, amzDate) });
  }
  const stored = async (key: string) => {
    const got = await s3.send(new GetObjectCommand({ Bucket: 'raw', Key: key }));
    return { text: await got.Body!.transformToString(), encoding: got.ContentEncoding, type: got.ContentType };
  };

  test('with every chunk signature valid, the decoded bytes are stored', async () => {
    const response = await streamingPut('signed', (seed, date) => signedChunks(chunks, seed, date));
    expect(response.status).toBe(200);
    expect(await stored('signed')).toEqual({ text: chunks.join(''), encoding: undefined, type: 'text/plain' });
  });

  test('a chunk altered after signing is SignatureDoesNotMatch, and nothing is stored', async () => {
    const response = await streamingPut('tampered', (seed, date) => signedChunks(chunks, seed, date, 1));
    expect(response.status).toBe(403);
    expect(errorOf(await response.text()).code).toBe('SignatureDoesNotMatch');
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'raw', Key: 'tampered' })))).name).toBe('NoSuchKey');
  });

  test('signed trailing checksums are verified: signature and value', async () => {
    const crc = (text: string) => {
      const out = Buffer.alloc(4);
      out.writeUInt32BE(crc32(text));
      return out.toString('base64');
    };
    const good = `x-amz-checksum-crc32:${crc(chunks.join(''))}`;
    const ok = await streamingPut(
      'trailed',
      (seed, date) => signedChunks(chunks, seed, date, undefined, good),
      decodedLength,
      'x-amz-checksum-crc32',
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-amz-checksum-crc32')).toBe(crc(chunks.join('')));
    expect((await stored('trailed')).text).toBe(chunks.join(''));
    const wrongValue = `x-amz-checksum-crc32:${crc('something else')}`;
    const bad = await streamingPut(
      'bad-crc',
      (seed, date) => signedChunks(chunks, seed, date, undefined, wrongValue),
      decodedLength,
      'x-amz-checksum-crc32',
    );
    expect(errorOf(await bad.text()).code).toBe('BadDigest');
    const forged = await streamingPut(
      'forged',
      (seed, date) =>
        signedChunks(chunks, seed, date, undefined, good).replace(
          /x-amz-trailer-signature:[0-9a-f]/,
          'x-amz-trailer-signature:g',
        ),
      decodedLength,
      'x-amz-checksum-crc32',
    );
    expect(errorOf(await forged.text()).code).toBe('SignatureDoesNotMatch');
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'raw', Key: 'forged' })))).name).toBe('NoSuchKey');
  });

  test('a truncated stream or a wrong decoded length is IncompleteBody', async () => {
    const truncated = await streamingPut('cut', (seed, date) => signedChunks(chunks, seed, date).slice(0, 120));
    expect(errorOf(await truncated.text()).code).toBe('IncompleteBody');
    const longer = await streamingPut('long', (seed, date) => signedChunks(chunks, seed, date), decodedLength + 1);
    expect(errorOf(await longer.text())).toEqual({
      code: 'IncompleteBody',
      message: `x-amz-decoded-content-length says ${decodedLength + 1} bytes; the body has ${decodedLength}.`,
    });
    const garbage = await streamingPut('garbage', () => 'zz;chunk-signature=00\r\nabc\r\n');
    expect(errorOf(await garbage.text()).code).toBe('IncompleteBody');
  });
});
