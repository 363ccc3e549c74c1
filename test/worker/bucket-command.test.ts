// `npm run bucket`: create, list and delete the buckets of a data directory.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { BucketCatalogue } from '../../src/bucket';
import { COMMAND_TEST_TIMEOUT_MS, runCommand } from './commands';
import { temporaryDirectory } from './config-files';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const bucket = (dataDir: string, ...args: string[]) => runCommand('bucket', ['--data-dir', dataDir, ...args]);
const USAGE = 'Usage: npm run bucket -- <command> [--account <id>] [--data-dir <dir>]';

test('create, list, delete', async () => {
  const dataDir = join(temporaryDirectory(), 'data');
  const created = await bucket(dataDir, 'create', 'photos');
  expect([created.code, created.stdout.trim().split('\n').pop()]).toEqual([0, `Created bucket photos in ${dataDir}`]);
  expect((await bucket(dataDir, 'create', 'archive-2024')).code).toBe(0);

  const listed = await bucket(dataDir, 'list');
  expect(listed.code).toBe(0);
  const lines = listed.stdout.split('\n').filter((line) => /\t/.test(line));
  expect(lines.map((line) => line.split('\t')[0])).toEqual(['archive-2024', 'photos']);
  for (const line of lines) expect(new Date(line.split('\t')[1]!).toISOString()).toBe(line.split('\t')[1]);

  const deleted = await bucket(dataDir, 'delete', 'photos');
  expect([deleted.code, deleted.stdout.trim().split('\n').pop()]).toEqual([0, `Deleted bucket photos from ${dataDir}`]);
  expect((await bucket(dataDir, 'list')).stdout).not.toContain('photos');
  expect(existsSync(join(dataDir, 'buckets', 'photos'))).toBe(false);
});

test('--help prints the usage, with the default data directory, and exits 0', async () => {
  const { code, stdout } = await runCommand('bucket', ['--help']);
  expect(code).toBe(0);
  expect(stdout).toContain(USAGE);
  expect(stdout).toContain('--data-dir <dir>  where the buckets live (default ./data)');
});

describe.concurrent('refusals', () => {
  test('a bucket that exists already', async () => {
    const dataDir = temporaryDirectory();
    await bucket(dataDir, 'create', 'photos');
    const again = await bucket(dataDir, 'create', 'photos');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('bucket create failed: The bucket you tried to create already exists, and you own it: photos. (code 10004)\n');
  });

  // A name starting with "-" would read as an option: it goes after "--".
  test.each(['ab', 'Photos', '-photos', 'photos-', 'my_photos', 'a'.repeat(64), '../escape'])('an invalid name: %s', async (name) => {
    const dataDir = temporaryDirectory();
    const { code, stderr } = await bucket(dataDir, 'create', '--', name);
    expect(code).toBe(1);
    expect(stderr).toContain(`bucket create failed: The specified bucket name is not valid: ${JSON.stringify(name)}.`);
    expect(stderr).toContain('(code 10005)');
    expect((await bucket(dataDir, 'list')).stdout).not.toContain('\t');
  });

  test('deleting a bucket that holds objects', async () => {
    const dataDir = temporaryDirectory();
    await bucket(dataDir, 'create', 'photos');
    const catalogue = new BucketCatalogue(dataDir);
    await (await catalogue.open('photos')).put('cat.jpg', 'meow');
    await catalogue.close();
    const { code, stderr } = await bucket(dataDir, 'delete', 'photos');
    expect(code).toBe(1);
    expect(stderr).toContain(
      'bucket delete failed: The bucket you tried to delete is not empty: photos still holds objects or multipart uploads in progress. (code 10008)\n',
    );
    expect((await bucket(dataDir, 'list')).stdout).toContain('photos\t');
  });

  test('deleting a bucket that does not exist', async () => {
    const dataDir = temporaryDirectory();
    const { code, stderr } = await bucket(dataDir, 'delete', 'ghost');
    expect(code).toBe(1);
    expect(stderr).toContain('bucket delete failed: The specified bucket does not exist: ghost. (code 10006)\n');
  });

  test('a data directory that does not exist: list is empty, delete fails, neither creates it', async () => {
    const dataDir = join(temporaryDirectory(), 'missing');
    const listed = await bucket(dataDir, 'list');
    expect([listed.code, listed.stderr.includes(`No data directory at ${dataDir}\n`)]).toEqual([0, true]);
    const deleted = await bucket(dataDir, 'delete', 'photos');
    expect([deleted.code, deleted.stderr.includes(`No data directory at ${dataDir}: there is no bucket photos to delete\n`)]).toEqual([1, true]);
    expect(existsSync(dataDir)).toBe(false);
  });

  test('an empty data directory lists nothing', async () => {
    const listed = await bucket(temporaryDirectory(), 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain('\t');
    expect(listed.stderr).toContain('No buckets in ');
  });

  test.each([
    [[], 'A command is required.'],
    [['rename', 'photos'], 'Unknown command "rename".'],
    [['create'], 'create needs the name of a bucket.'],
    [['delete'], 'delete needs the name of a bucket.'],
    [['create', 'one', 'two'], 'create takes one name; unexpected "two".'],
    [['list', 'photos'], 'list takes no name (got "photos").'],
    [['list', '--force'], "Unknown option '--force'"],
  ])('usage error %j: exit 2 with the reason and the usage', async (args, reason) => {
    const { code, stderr } = await runCommand('bucket', [...args, '--data-dir', temporaryDirectory()]);
    expect(code).toBe(2);
    expect(stderr).toContain(reason);
    expect(stderr).toContain(USAGE);
  });
});
