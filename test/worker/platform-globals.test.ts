// What the host adds to Node's globals so worker code sees the platform's: FixedLengthStream, and
// bodies whose Content-Length gives them a known length (the only streams a bucket stores).
import { beforeAll, describe, expect, test } from 'vitest';
import { FixedLengthStream, streamLength } from '../../src/bucket';
import { installPlatformGlobals } from '../../src/worker/host/platform-globals';

beforeAll(() => {
  installPlatformGlobals();
  installPlatformGlobals(); // a second call changes nothing
});

describe('the host globals', () => {
  test('FixedLengthStream is a global, the runtime\'s own', () => {
    expect((globalThis as { FixedLengthStream?: unknown }).FixedLengthStream).toBe(FixedLengthStream);
  });

  test('a request body with a Content-Length has that length; a chunked one has none', () => {
    const sized = new Request('http://worker.example/k', { method: 'PUT', body: 'abc', headers: { 'content-length': '3' } });
    expect(streamLength(sized.body!)).toBe(3);
    const chunked = new Request('http://worker.example/k', { method: 'PUT', body: new Blob(['abc']).stream(), duplex: 'half' } as RequestInit);
    expect(streamLength(chunked.body!)).toBeUndefined();
  });

  test('a response body has the length its Content-Length gives, unless it was content-encoded', () => {
    expect(streamLength(new Response('abcd', { headers: { 'content-length': '4' } }).body!)).toBe(4);
    const encoded = new Response('abcd', { headers: { 'content-length': '2', 'content-encoding': 'gzip' } });
    expect(streamLength(encoded.body!)).toBeUndefined();
    expect(streamLength(new Response('abcd', { headers: { 'content-length': 'four' } }).body!)).toBeUndefined();
    expect(new Response(null).body).toBeNull();
  });
});
