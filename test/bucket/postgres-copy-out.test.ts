// How the PostgreSQL engine reads bodies: a binary COPY of a body's rows, received straight from
// the connection's own read buffer (LeanSocket, CopyOutQuery) and cut into pieces of the range
// asked for (RowRangeReceiver), whatever way the socket cuts it, errors and notices included.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { COPY_HEADER, COPY_TRAILER, RowRangeReceiver } from '../../src/bucket/postgres/copy-format';
import { CopyOutQuery } from '../../src/bucket/postgres/copy-out';
import { connectionSocket, LeanSocket } from '../../src/bucket/postgres/lean-socket';
import { startPostgres, type PostgresCluster } from '../support/postgres';

/** A binary COPY of rows `(start, bytes)`, as `select start, bytes from chunks` sends it. */
function copyOf(rows: Buffer[], firstStart = 0): Buffer {
  const parts: Buffer[] = [COPY_HEADER];
  let start = firstStart;
  for (const bytes of rows) {
    const head = Buffer.alloc(2 + 4 + 8 + 4);
    head.writeInt16BE(2, 0);
    head.writeInt32BE(8, 2);
    head.writeBigInt64BE(BigInt(start), 6);
    head.writeInt32BE(bytes.byteLength, 14);
    parts.push(head, bytes);
    start += bytes.byteLength;
  }
  parts.push(COPY_TRAILER);
  return Buffer.concat(parts);
}

/** Feeds `copy` cut at `cuts` (sorted offsets) and answers the pieces, joined, and their sizes. */
function receive(copy: Buffer, cuts: number[], from: number, to: number, pieceBytes: number) {
  const receiver = new RowRangeReceiver(from, to, pieceBytes, (size) => Buffer.alloc(size, 0xee));
  let at = 0;
  for (const cut of [...cuts, copy.byteLength]) {
    // Each cut is fed from a buffer overwritten afterwards, as the socket's is.
    const reused = Buffer.from(copy.subarray(at, cut));
    receiver.feed(reused);
    reused.fill(0);
    at = cut;
  }
  const pieces = receiver.finish();
  return { bytes: Buffer.concat(pieces), sizes: pieces.map((piece) => piece.byteLength) };
}

describe('RowRangeReceiver', () => {
  const rows = [randomBytes(100), randomBytes(100), randomBytes(100), randomBytes(37)];
  const body = Buffer.concat(rows);
  const copy = copyOf(rows);

  /** The rows the engine's statement selects for a range: those that overlap it. */
  const copyFor = (from: number, to: number) => {
    const first = Math.floor(from / 100);
    return copyOf(rows.slice(first, Math.ceil(to / 100)), first * 100);
  };

  test('every range of the body, with the COPY of its rows cut before each byte in turn', () => {
    for (const [from, to] of [
      [0, 337],
      [0, 1],
      [99, 101],
      [150, 337],
      [200, 300],
      [336, 337],
    ] as const) {
      const copy = copyFor(from, to);
      for (let cut = 1; cut < copy.byteLength; cut++) {
        const { bytes } = receive(copy, [cut], from, to, 64);
        expect(bytes.equals(body.subarray(from, to)), `range ${from}-${to}, cut at ${cut}`).toBe(true);
      }
    }
  });

  test('one byte at a time, into pieces of at most the size asked, the last one cut to what is left', () => {
    const cuts = Array.from({ length: copy.byteLength - 1 }, (_, index) => index + 1);
    const { bytes, sizes } = receive(copy, cuts, 10, 337, 100);
    // And a row the range ends in is read no further.
    expect(receive(copy, cuts, 0, 150, 100).bytes.equals(body.subarray(0, 150))).toBe(true);
    expect(bytes.equals(body.subarray(10))).toBe(true);
    expect(sizes).toEqual([100, 100, 100, 27]);
  });

  test('rows that start past the position (a gap) end the pieces short', () => {
    const gapped = Buffer.concat([copyOf([rows[0]!]).subarray(0, -2), copyOf([rows[1]!], 150).subarray(COPY_HEADER.byteLength)]);
    const { bytes } = receive(gapped, [], 0, 250, 64);
    expect(bytes.equals(rows[0]!)).toBe(true);
  });

  test('a COPY that stops in the middle of a row, or is not a binary COPY, is an error', () => {
    expect(() => receive(copy.subarray(0, copy.byteLength - 50), [], 0, 337, 64)).toThrow(
      'The database ended a COPY in the middle of a row.',
    );
    const text = Buffer.from('1\t\\x00\n2\t\\x01\n\\.\n'.padEnd(40, ' '));
    expect(() => receive(text, [], 0, 2, 64)).toThrow('The database sent a COPY in an unknown format.');
  });
});

describe('CopyOutQuery on a LeanSocket', () => {
  let cluster: PostgresCluster;
  let url: string;
  const clients: pg.Client[] = [];
  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
    const setup = await connect();
    await setup.query(`create function noisy(i int) returns int language plpgsql as $$
      begin if i % 100 = 0 then raise notice 'row %', i; end if; return i; end $$`);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.end()));
  });
  afterAll(() => cluster?.stop());

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url, stream: connectionSocket as never });
    clients.push(client);
    await client.connect();
    return client;
  }

  /** Runs `text` through a CopyOutQuery; its data as received. */
  async function copyOut(client: pg.Client, text: string, feed?: (bytes: Buffer) => void): Promise<Buffer> {
    const received: Buffer[] = [];
    await client.query(new CopyOutQuery(text, feed ?? ((bytes) => received.push(Buffer.from(bytes))))).finished;
    return Buffer.concat(received);
  }

  /** The same COPY through the driver's own path: what the data should be. */
  async function expected(text: string): Promise<Buffer> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const received: Buffer[] = [];
      for await (const chunk of client.query(copyTo(text))) received.push(chunk as Buffer);
      return Buffer.concat(received);
    } finally {
      await client.end();
    }
  }

  const LARGE = `copy (select i, convert_to(repeat(md5(i::text), 250), 'UTF8') from generate_series(1, 2200) i) to stdout (format binary)`;

  test('the connections the engine opens read into a buffer of their own', async () => {
    const client = await connect();
    expect(client.connection.stream).toBeInstanceOf(LeanSocket);
    // And the driver reads everything else as before, large results included.
    const { rows } = await client.query<{ text: string }>(`select repeat('ab', 200000) as text`);
    expect(rows[0]!.text.length).toBe(400_000);
  });

  test('a COPY of 16 MiB arrives whole, and the connection serves the next statement', async () => {
    const client = await connect();
    const data = await copyOut(client, LARGE);
    expect(data.byteLength).toBeGreaterThan(16 * 1024 * 1024);
    expect(data.equals(await expected(LARGE))).toBe(true);
    expect((await client.query('select 41 + 1 as answer')).rows).toEqual([{ answer: 42 }]);
  });

  test('notices the server sends during the COPY are passed over', async () => {
    const client = await connect();
    const notices: string[] = [];
    client.on('notice', (notice) => notices.push(notice.message!));
    const text = `copy (select noisy(i) from generate_series(1, 1000) i) to stdout (format binary)`;
    expect((await copyOut(client, text)).equals(await expected(text))).toBe(true);
    expect(notices).toEqual([]);
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  test('an error before any data, or after some, fails the query with the server message; the connection goes on', async () => {
    const client = await connect();
    await expect(copyOut(client, `copy (select 1 / 0) to stdout (format binary)`)).rejects.toThrow('division by zero');
    expect((await client.query('select 2 as two')).rows).toEqual([{ two: 2 }]);
    let fed = 0;
    const late = `copy (select convert_to(repeat('x', 8000), 'UTF8'), 1 / (3000 - i) from generate_series(1, 4000) i) to stdout (format binary)`;
    await expect(copyOut(client, late, (bytes) => (fed += bytes.byteLength))).rejects.toThrow('division by zero');
    expect(fed).toBeGreaterThan(1024 * 1024);
    expect((await client.query('select 3 as three')).rows).toEqual([{ three: 3 }]);
  });

  test('a connection the server ends is noticed: the statement in flight fails, the client ends', async () => {
    const client = await connect();
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    client.on('error', () => {});
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    // Its outcome taken at once: the failure may come in before the terminating query answers,
    // and a rejection without a handler until then is reported as unhandled.
    const sleeping = client.query('select pg_sleep(30)').then(
      () => 'finished',
      (error: Error) => error.message,
    );
    const other = await connect();
    await other.query('select pg_terminate_backend($1)', [pid]);
    expect(await sleeping).toMatch(/terminat/);
    await ended;
    clients.splice(clients.indexOf(client), 1);
  });

  test('a receiver that throws fails the query with its error, once the COPY has been read to its end', async () => {
    const client = await connect();
    let calls = 0;
    const refusing = (bytes: Buffer) => {
      calls++;
      if (bytes.byteLength > 0) throw new Error('not what was expected');
    };
    await expect(copyOut(client, LARGE, refusing)).rejects.toThrow('not what was expected');
    expect(calls).toBe(1);
    expect((await copyOut(client, LARGE)).equals(await expected(LARGE))).toBe(true);
  });
});
