// The floor of a signed, durable S3 request on the machine at hand: a node:http server that does
// only what the wire benchmark's targets keep (a presigned URL's signature verified on every
// request, a PUT committed durably before it is answered, a GET read from the database so another
// process's write is seen) and nothing else. It writes the on-disk bucket's own database with the
// engine's own statements (WAL, synchronous=FULL, PUTs of one turn of the event loop in one
// transaction, as the engine's group commit does), so the runtime reads back what it wrote.
// Left out, where the endpoint pays for them: routing, every other operation and header,
// conditions, checksums other than the MD5, the bucket's deletion checks, XML errors, logging,
// re-encoding a query the client did not write canonically (the AWS SDK always does).
// Run as a script (`node --import tsx signed-durable-floor.ts <bucket directory> <key id> <secret>`)
// it listens on a free port of 127.0.0.1 and prints `port <n>`.
import { createHmac, createSecretKey, hash, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { prepareStatements } from '../../../src/bucket/disk/schema';
import { signingKey } from '../../../src/s3/sigv4';

export interface FloorCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

interface PendingPut {
  key: Buffer;
  body: Buffer;
  etag: string;
  response: http.ServerResponse;
}

/** `YYYYMMDDTHHMMSSZ` as epoch milliseconds. */
const amzDateMs = (text: string) =>
  Date.UTC(+text.slice(0, 4), +text.slice(4, 6) - 1, +text.slice(6, 8), +text.slice(9, 11), +text.slice(11, 13), +text.slice(13, 15));

/**
 * The object's path (`/<bucket>/<key>`, as sent) when `request` carries a presigned URL signed
 * with `credentials` (algorithm, key id, expiry and signature over the host header, unsigned
 * payload), else null.
 */
function presignedPath(request: http.IncomingMessage, credentials: FloorCredentials, keyForScope: (scope: string) => KeyObject): string | null {
  const url = request.url ?? '';
  const question = url.indexOf('?');
  if (question < 0) return null;
  let signature = '';
  let credential = '';
  let amzDate = '';
  let expires = NaN;
  let algorithm = '';
  let signedHeaders = '';
  const signed: string[] = [];
  for (const pair of url.slice(question + 1).split('&')) {
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals);
    const value = pair.slice(equals + 1);
    if (name === 'X-Amz-Signature') {
      signature = value;
      continue;
    }
    if (name === 'X-Amz-Credential') credential = decodeURIComponent(value);
    else if (name === 'X-Amz-Date') amzDate = value;
    else if (name === 'X-Amz-Expires') expires = Number(value);
    else if (name === 'X-Amz-Algorithm') algorithm = value;
    else if (name === 'X-Amz-SignedHeaders') signedHeaders = value;
    signed.push(pair);
  }
  const slash = credential.indexOf('/');
  if (algorithm !== 'AWS4-HMAC-SHA256' || signedHeaders !== 'host' || credential.slice(0, slash) !== credentials.accessKeyId) return null;
  if (!(Date.now() <= amzDateMs(amzDate) + expires * 1000)) return null;
  const scope = credential.slice(slash + 1);
  const path = url.slice(0, question);
  const canonical = `${request.method}\n${path}\n${signed.sort().join('&')}\nhost:${request.headers.host}\n\nhost\nUNSIGNED-PAYLOAD`;
  const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${hash('sha256', canonical)}`;
  const expected = createHmac('sha256', keyForScope(scope)).update(toSign).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) ? path : null;
}

/** The floor server over the on-disk bucket in `bucketDirectory` (made by the runtime beforehand). */
export function signedDurableFloor(bucketDirectory: string, credentials: FloorCredentials): { server: http.Server; close(): void } {
  const db = new Database(join(bucketDirectory, 'objects.sqlite'));
  db.pragma('busy_timeout = 10000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const sql = prepareStatements(db);
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');

  // Kept as KeyObjects, as the endpoint keeps them: on Node 24 an HMAC keyed with a Buffer builds
  // and discards an Error (with its stack) to tell the key from a CryptoKey, 7 µs alone and about
  // 20 µs of a served GET (50 µs a request with Buffers, 31 with KeyObjects; Node 22 has no such cost).
  const signingKeys = new Map<string, KeyObject>();
  const keyForScope = (scope: string) => {
    let key = signingKeys.get(scope);
    if (!key) {
      const [date, region, service] = scope.split('/') as [string, string, string];
      key = createSecretKey(signingKey(credentials.secretAccessKey, date, region, service));
      signingKeys.set(scope, key);
    }
    return key;
  };

  let pending: PendingPut[] = [];
  /** One transaction for the PUTs of a turn; each is answered once it is durable. */
  const commitPending = () => {
    const batch = pending;
    pending = [];
    try {
      begin.run();
      for (const put of batch) {
        const replaced = sql.current.get(put.key);
        if (replaced?.[9] != null) sql.deleteSmallBody.run(replaced[9]);
        const bodyId = Number(sql.insertSmallBody.run(put.body).lastInsertRowid);
        sql.upsert.run({
          key: put.key,
          version: randomBytes(16).toString('hex'),
          size: put.body.length,
          etag: put.etag,
          uploaded: Date.now(),
          http_metadata: '{}',
          custom_metadata: '{}',
          checksums: `{"md5":"${put.etag}"}`,
          encryption: null,
          body_id: bodyId,
          segments: null,
        });
      }
      commit.run();
    } catch {
      if (db.inTransaction) rollback.run();
      for (const put of batch) put.response.writeHead(500, { 'content-length': '0' }).end();
      return;
    }
    for (const put of batch) put.response.writeHead(200, { etag: `"${put.etag}"`, 'content-length': '0' }).end();
  };

  const server = http.createServer((request, response) => {
    const path = presignedPath(request, credentials, keyForScope);
    if (path === null) {
      request.resume();
      response.writeHead(403, { 'content-length': '0' }).end();
      return;
    }
    const key = Buffer.from(decodeURIComponent(path.slice(path.indexOf('/', 1) + 1)));
    if (request.method === 'PUT') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        if (pending.length === 0) setImmediate(commitPending);
        pending.push({ key, body, etag: hash('md5', body), response });
      });
      return;
    }
    const row = sql.read.get(key);
    // Bodies kept in the database only: the benchmark's are 1 KiB.
    if (!row || row[11] === null) {
      response.writeHead(404, { 'content-length': '0' }).end();
      return;
    }
    const [, , size, etag, uploaded] = row;
    response
      .writeHead(200, {
        etag: `"${etag}"`,
        'last-modified': new Date(uploaded).toUTCString(),
        'content-type': 'application/octet-stream',
        'content-length': String(size),
      })
      .end(row[11]);
  });
  server.keepAliveTimeout = 60_000;
  return { server, close: () => db.close() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [directory, accessKeyId, secretAccessKey] = process.argv.slice(2) as [string, string, string];
  const { server } = signedDurableFloor(directory, { accessKeyId, secretAccessKey });
  server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as { port: number }).port}`));
}
