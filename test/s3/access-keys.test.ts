// Where the endpoint's access keys come from, and the mistakes refused (never quoting a secret).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { loadAccessKeys, S3ConfigError } from '../../src/s3';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function credentialsFile(text: string): string {
  const directory = mkdtempSync(join(tmpdir(), 's3-keys-'));
  directories.push(directory);
  const file = join(directory, 'credentials');
  writeFileSync(file, text);
  return file;
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(S3ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the keys to be refused');
};

test('keys from the environment and from a credentials file, together', () => {
  const file = credentialsFile('# keys\nFILEKEY=file-secret-1\nexport OTHER_KEY="quoted secret"\n');
  const keys = loadAccessKeys({ S3_ACCESS_KEY_ID: 'ENVKEY', S3_SECRET_ACCESS_KEY: 'env-secret-1' }, file);
  expect([...keys]).toEqual([
    ['ENVKEY', 'env-secret-1'],
    ['FILEKEY', 'file-secret-1'],
    ['OTHER_KEY', 'quoted secret'],
  ]);
});

test('no key, half a key, a short secret, a key given twice, a bad id are refused without quoting secrets', () => {
  expect(refusal(() => loadAccessKeys({}))).toBe(
    'No access key: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or give a credentials file of ACCESS_KEY_ID=secret lines.',
  );
  expect(refusal(() => loadAccessKeys({ S3_SECRET_ACCESS_KEY: 'lonely-secret' }))).toContain('go together');
  const short = refusal(() => loadAccessKeys({ S3_ACCESS_KEY_ID: 'ENVKEY', S3_SECRET_ACCESS_KEY: 'tiny' }));
  expect(short).toBe('the environment: the secret of ENVKEY is shorter than 8 characters.');
  const twice = credentialsFile('ENVKEY=another-secret\n');
  expect(
    refusal(() => loadAccessKeys({ S3_ACCESS_KEY_ID: 'ENVKEY', S3_SECRET_ACCESS_KEY: 'env-secret-1' }, twice)),
  ).toBe(`${twice}: the access key id ENVKEY is given twice.`);
  const badId = refusal(() => loadAccessKeys({ S3_ACCESS_KEY_ID: 'no spaces', S3_SECRET_ACCESS_KEY: 'env-secret-1' }));
  expect(badId).toContain('"no spaces" must be 3 to 128 letters, digits or _.');
  for (const message of [short, badId]) expect(message).not.toMatch(/tiny|env-secret-1/);
});
