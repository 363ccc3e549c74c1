import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadWorkerConfig, requireExistingBuckets, ConfigFileError, type WorkerConfig } from '../../src/worker';
import { configDirectory, configFile } from './config-files';

const TODAY = new Date('2025-06-01T12:00:00Z');

const FULL_TOML = `
name = "photos-worker"
main = "worker.ts"
account_id = "023e105f4ecef8ad9ca31a8372d0c353"
compatibility_date = "2022-08-04"
compatibility_flags = ["nodejs_compat", "r2_list_honor_include"]
workers_dev = true
routes = [{ pattern = "example.com/*", zone_name = "example.com" }]

[vars]
ALLOW_LIST = "a.jpg,b.jpg"
RETRIES = 3
DEBUG = false
LIMITS = { size = 10, names = ["x", "y"] }

[[r2_buckets]]
binding = "PHOTOS"
bucket_name = "photos"
preview_bucket_name = "photos-preview"
jurisdiction = "eu"

[[r2_buckets]]
binding = "$archive_2"
bucket_name = "archive"

[secrets]
required = ["AUTH_KEY_SECRET", "OTHER_SECRET"]
`;

const FULL_JSONC = `// The same worker, in JSON with comments.
{
  "$schema": "node_modules/wrangler/config-schema.json",
  "name": "photos-worker",
  "main": "worker.ts",
  "account_id": "023e105f4ecef8ad9ca31a8372d0c353",
  "compatibility_date": "2022-08-04",
  "compatibility_flags": ["nodejs_compat", "r2_list_honor_include"],
  "workers_dev": true,
  "routes": [{ "pattern": "example.com/*", "zone_name": "example.com" }],
  /* vars are text or JSON */
  "vars": {
    "ALLOW_LIST": "a.jpg,b.jpg",
    "RETRIES": 3,
    "DEBUG": false,
    "LIMITS": { "size": 10, "names": ["x", "y"] },
  },
  "r2_buckets": [
    { "binding": "PHOTOS", "bucket_name": "photos", "preview_bucket_name": "photos-preview", "jurisdiction": "eu" },
    { "binding": "$archive_2", "bucket_name": "archive" }, // trailing commas are fine
  ],
  "secrets": { "required": ["AUTH_KEY_SECRET", "OTHER_SECRET"] },
}
`;

function expected(file: string): WorkerConfig {
  return {
    file,
    name: 'photos-worker',
    main: join(file, '..', 'worker.ts'),
    accountId: '023e105f4ecef8ad9ca31a8372d0c353',
    compatibilityDate: '2022-08-04',
    compatibilityFlags: ['nodejs_compat', 'r2_list_honor_include'],
    vars: { ALLOW_LIST: 'a.jpg,b.jpg', RETRIES: 3, DEBUG: false, LIMITS: { size: 10, names: ['x', 'y'] } },
    buckets: [
      { binding: 'PHOTOS', bucketName: 'photos', previewBucketName: 'photos-preview', jurisdiction: 'eu' },
      { binding: '$archive_2', bucketName: 'archive' },
    ],
    requiredSecrets: ['AUTH_KEY_SECRET', 'OTHER_SECRET'],
    ignoredKeys: ['workers_dev', 'routes'],
  };
}

/** The problems of a configuration that must fail, without the file name in front. */
function problemsOf(file: string): string[] {
  try {
    loadWorkerConfig(file, TODAY);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    expect((error as ConfigFileError).file).toBe(file);
    expect((error as Error).message).toBe((error as ConfigFileError).problems.join('\n'));
    return (error as ConfigFileError).problems.map((problem) => {
      expect(problem.startsWith(file)).toBe(true);
      return problem.slice(file.length);
    });
  }
  throw new Error(`${file} loaded without problems`);
}

const toml = (body: string) => configFile('wrangler.toml', `main = "worker.ts"\n${body}`);
const jsonc = (body: string) => configFile('wrangler.jsonc', body);

describe('loading a configuration', () => {
  test('TOML: every supported key, with paths resolved against the file', () => {
    const file = configFile('wrangler.toml', FULL_TOML);
    expect(loadWorkerConfig(file, TODAY)).toEqual(expected(file));
  });

  test('JSONC: the same configuration, with comments and trailing commas', () => {
    for (const name of ['wrangler.jsonc', 'wrangler.json']) {
      const file = configFile(name, FULL_JSONC);
      expect(loadWorkerConfig(file, TODAY)).toEqual(expected(file));
    }
  });

  test('only main is needed; the rest has defaults', () => {
    const file = toml('');
    expect(loadWorkerConfig(file, TODAY)).toEqual({
      file,
      main: join(file, '..', 'worker.ts'),
      compatibilityFlags: [],
      vars: {},
      buckets: [],
      ignoredKeys: [],
    });
  });

  test('a relative path to the file is made absolute, and main may sit in another directory', () => {
    const directory = configDirectory();
    const file = configFile('wrangler.toml', 'main = "../' + directory.split('/').pop() + '/worker.ts"', directory);
    const config = loadWorkerConfig(file, TODAY);
    expect(config.main).toBe(join(directory, 'worker.ts'));
  });

  test('a byte order mark at the start is tolerated', () => {
    const file = configFile('wrangler.toml', '\uFEFFmain = "worker.ts"\n');
    expect(loadWorkerConfig(file, TODAY).main).toBe(join(file, '..', 'worker.ts'));
  });

  test('a compatibility date of today is accepted', () => {
    expect(loadWorkerConfig(toml('compatibility_date = "2025-06-01"'), TODAY).compatibilityDate).toBe('2025-06-01');
  });
});

describe('binding names must be JavaScript variable names', () => {
  test.each(['MY_BUCKET', '_private', '$bucket', 'bucket2', 'ünïcödé', 'Ωmega'])('%s is accepted', (binding) => {
    const file = toml(`[[r2_buckets]]\nbinding = "${binding}"\nbucket_name = "photos"`);
    expect(loadWorkerConfig(file, TODAY).buckets).toEqual([{ binding, bucketName: 'photos' }]);
  });

  test.each([
    ['my-bucket', 'is not a valid JavaScript identifier (letters, digits, _ and $, not starting with a digit)'],
    ['2fast', 'is not a valid JavaScript identifier (letters, digits, _ and $, not starting with a digit)'],
    ['my bucket', 'is not a valid JavaScript identifier (letters, digits, _ and $, not starting with a digit)'],
    ['a.b', 'is not a valid JavaScript identifier (letters, digits, _ and $, not starting with a digit)'],
    ['class', 'is a reserved word in JavaScript and cannot name a variable'],
    ['await', 'is a reserved word in JavaScript and cannot name a variable'],
    ['eval', 'is a reserved word in JavaScript and cannot name a variable'],
    ['null', 'is a reserved word in JavaScript and cannot name a variable'],
  ])('%j is refused', (binding, reason) => {
    const file = toml(`[[r2_buckets]]\nbinding = "photos"\nbucket_name = "photos"\n[[r2_buckets]]\nbinding = "${binding}"\nbucket_name = "photos"`);
    expect(problemsOf(file)).toEqual([`: r2_buckets[1].binding: ${JSON.stringify(binding)} ${reason}`]);
  });
});

describe('problems name the file, the entry and the reason', () => {
  test('a bucket name outside the naming rule', () => {
    expect(problemsOf(toml('[[r2_buckets]]\nbinding = "B"\nbucket_name = "My_Bucket"'))).toEqual([
      ': r2_buckets[0].bucket_name: "My_Bucket" is not a valid bucket name (3 to 63 lower-case letters, digits and hyphens, neither starting nor ending with a hyphen)',
    ]);
  });

  test('missing binding and bucket_name', () => {
    expect(problemsOf(toml('[[r2_buckets]]\npreview_bucket_name = "photos"'))).toEqual([
      ': r2_buckets[0].binding: missing: the name the worker sees the bucket under (env.<binding>)',
      ': r2_buckets[0].bucket_name: missing: the name of a bucket of the data directory',
    ]);
  });

  test('a duplicate binding names the entry that has it first', () => {
    const file = toml(
      '[[r2_buckets]]\nbinding = "B"\nbucket_name = "one"\n[[r2_buckets]]\nbinding = "C"\nbucket_name = "two"\n[[r2_buckets]]\nbinding = "B"\nbucket_name = "three"',
    );
    expect(problemsOf(file)).toEqual([': r2_buckets[2].binding: "B" is already bound by r2_buckets[0].binding']);
  });

  test('one bucket under two bindings is fine', () => {
    const file = toml('[[r2_buckets]]\nbinding = "A"\nbucket_name = "one"\n[[r2_buckets]]\nbinding = "B"\nbucket_name = "one"');
    expect(loadWorkerConfig(file, TODAY).buckets.map((bucket) => bucket.bucketName)).toEqual(['one', 'one']);
  });

  test('a var with the name of a binding', () => {
    const file = toml('[[r2_buckets]]\nbinding = "B"\nbucket_name = "one"\n[vars]\nB = "text"');
    expect(problemsOf(file)).toEqual([': vars.B: "B" is already bound by r2_buckets[0].binding']);
  });

  test('a secret may not be given a value in [vars]', () => {
    const file = toml('[vars]\nAUTH_KEY_SECRET = "hunter2"\n[secrets]\nrequired = ["AUTH_KEY_SECRET"]');
    expect(problemsOf(file)).toEqual([
      ': secrets.required[0]: "AUTH_KEY_SECRET" is also set in [vars]: a secret\'s value comes from the environment or .dev.vars, never from the configuration file',
    ]);
  });

  test('a secret with the name of a binding', () => {
    const file = toml('[[r2_buckets]]\nbinding = "B"\nbucket_name = "one"\n[secrets]\nrequired = ["B"]');
    expect(problemsOf(file)).toEqual([': secrets.required[0]: "B" is already bound by r2_buckets[0].binding']);
  });

  test('unknown keys, at the top and in an entry', () => {
    const file = toml('kv_namespaces = []\n[[r2_buckets]]\nbinding = "B"\nbucket = "one"\nbucket_name = "one"');
    expect(problemsOf(file)).toEqual([
      ': kv_namespaces: unknown key; this host reads name, main, account_id, compatibility_date, compatibility_flags, vars, r2_buckets, secrets (other bindings and environments are not supported)',
      ': r2_buckets[0].bucket: unknown key; an entry here has binding, bucket_name, preview_bucket_name, jurisdiction',
    ]);
  });

  test('unknown keys under [secrets], bad and repeated secret names', () => {
    const file = toml('[secrets]\nrequired = ["A", "2B", "A", 7]\noptional = ["C"]');
    expect(problemsOf(file)).toEqual([
      ': secrets.optional: unknown key; an entry here has required',
      ': secrets.required[1]: "2B" is not a secret name (letters, digits and _, not starting with a digit)',
      ': secrets.required[2]: "A" is listed twice',
      ': secrets.required[3]: must be a string, not a number (7)',
    ]);
  });

  test('values of the wrong type', () => {
    const file = toml('name = 3\naccount_id = ""\ncompatibility_flags = "nodejs_compat"\nvars = "x"\nr2_buckets = { binding = "B" }\nsecrets = ["A"]');
    expect(problemsOf(file)).toEqual([
      ': name: must be a non-empty string, not a number (3)',
      ': account_id: must be a non-empty string, not a string ("")',
      ': compatibility_flags: must be an array of strings, not a string ("nodejs_compat")',
      ': vars: must be a table of names and values, not a string ("x")',
      ': r2_buckets: must be an array of tables ([[r2_buckets]]), not a table',
      ': secrets: must be a table with required = ["NAME", ...], not an array',
    ]);
  });

  test('entries that are not tables, flags that are not names (JSONC)', () => {
    const file = jsonc('{"main": "worker.ts", "r2_buckets": [1, null], "compatibility_flags": ["ok_flag", "Not A Flag", true]}');
    expect(problemsOf(file)).toEqual([
      ': compatibility_flags[1]: "Not A Flag" is not a compatibility flag name (lower-case letters, digits and _)',
      ': compatibility_flags[2]: must be a string, not a boolean (true)',
      ': r2_buckets[0]: must be a table with binding and bucket_name, not a number (1)',
      ': r2_buckets[1]: must be a table with binding and bucket_name, not null',
    ]);
  });

  test('main missing, or naming no file', () => {
    expect(problemsOf(configFile('wrangler.toml', 'name = "w"'))).toEqual([
      ': main: missing: the path of the module worker to serve, relative to this file',
    ]);
    const file = configFile('wrangler.toml', 'main = "src/nowhere.ts"');
    expect(problemsOf(file)).toEqual([`: main: no such file: ${join(file, '..', 'src', 'nowhere.ts')}`]);
  });

  test.each([
    ['compatibility_date = 2024-01-01', 'must be a string: quote the date, as in compatibility_date = "2024-09-23"'],
    ['compatibility_date = "2024-02-30"', 'must be a date written "YYYY-MM-DD", not a string ("2024-02-30")'],
    ['compatibility_date = "24-01-01"', 'must be a date written "YYYY-MM-DD", not a string ("24-01-01")'],
    ['compatibility_date = 20240101', 'must be a date written "YYYY-MM-DD", not a number (20240101)'],
    ['compatibility_date = "2025-06-02"', '2025-06-02 is in the future (today is 2025-06-01)'],
  ])('compatibility date: %s', (line, reason) => {
    expect(problemsOf(toml(line))).toEqual([`: compatibility_date: ${reason}`]);
  });

  test('vars must be text or JSON values', () => {
    const file = toml('[vars]\nWHEN = 2024-01-01T00:00:00Z\nNESTED = { list = [1, 1979-05-27] }\nOK = "fine"');
    expect(problemsOf(file)).toEqual([
      ': vars.WHEN: a TOML date is not a JSON value: quote it to pass it as text',
      ': vars.NESTED: a TOML date is not a JSON value: quote it to pass it as text',
    ]);
  });

  test('var names that are not plain words are quoted in the path', () => {
    const file = jsonc('{"main": "worker.ts", "vars": {"": "x", "a b": 1e999}}');
    expect(problemsOf(file)).toEqual([': vars[""]: a var needs a non-empty name', ': vars["a b"]: Infinity is not a JSON number']);
  });

  test('a top level that is not a table', () => {
    expect(problemsOf(jsonc('[1, 2]'))).toEqual([': the configuration must be a table (an object) at the top level, not an array']);
  });

  test('every problem of a file is reported at once', () => {
    const file = toml('colour = "blue"\n[[r2_buckets]]\nbinding = "if"\nbucket_name = "X"');
    expect(problemsOf(file)).toHaveLength(3);
  });
});

describe('malformed files are reported with line and column', () => {
  test('TOML syntax', () => {
    const file = configFile('wrangler.toml', 'main = "worker.ts"\nname = \n');
    expect(problemsOf(file)).toEqual([':2:8: malformed TOML: invalid value\n1:  main = "worker.ts"\n2:  name = \n           ^']);
  });

  test('a TOML key given twice', () => {
    const [problem] = problemsOf(configFile('wrangler.toml', 'main = "worker.ts"\nmain = "other.ts"\n'));
    expect(problem).toMatch(/^:2:1: malformed TOML: trying to redefine an already defined table or value\n/);
  });

  test('JSON syntax: the first error (the later ones follow from it)', () => {
    const file = jsonc('{\n  "main": "worker.ts"\n  "name": "w",\n  "vars": {\n}');
    expect(problemsOf(file)).toEqual([':3:3: malformed JSON: comma expected']);
    expect(problemsOf(jsonc('{"main": "worker.ts", "vars": {"A": tru}}'))).toEqual([':1:37: malformed JSON: invalid symbol']);
  });

  test('a JSON key given twice, at any depth', () => {
    const file = jsonc('{\n  "main": "worker.ts",\n  "vars": { "A": 1,\n    "A": 2 },\n  "main": "x.ts"\n}');
    expect(problemsOf(file)).toEqual([
      ':5:3: duplicate key "main" in the same object',
      ':4:5: duplicate key "A" in the same object',
    ]);
  });

  test('an empty JSON file holds no keys, as an empty TOML file', () => {
    expect(problemsOf(jsonc('  // nothing\n'))).toEqual([': main: missing: the path of the module worker to serve, relative to this file']);
    expect(problemsOf(configFile('wrangler.toml', '# nothing\n'))).toEqual([': main: missing: the path of the module worker to serve, relative to this file']);
  });

  test('a file of another kind, a missing file, an unreadable file', () => {
    expect(problemsOf(configFile('wrangler.yaml', 'main: worker.ts'))).toEqual([
      ': a worker configuration is a .toml, .json or .jsonc file',
    ]);
    expect(problemsOf(join(configDirectory(), 'wrangler.toml'))).toEqual([': cannot read the file (ENOENT)']);
    const directory = join(configDirectory(), 'folder.toml');
    mkdirSync(directory);
    expect(problemsOf(directory)).toEqual([': cannot read the file (EISDIR)']);
  });
});

describe('bound buckets must exist', () => {
  test('every missing bucket is named, with the command that creates it', () => {
    const file = toml('[[r2_buckets]]\nbinding = "A"\nbucket_name = "photos"\n[[r2_buckets]]\nbinding = "B"\nbucket_name = "archive"');
    const config = loadWorkerConfig(file, TODAY);
    expect(() => requireExistingBuckets(config, ['photos', 'other'], '/srv/data')).toThrow(
      new ConfigFileError(file, [
        `${file}: r2_buckets[1].bucket_name: no bucket "archive" in the data directory /srv/data (create it with: npm run bucket -- create archive --data-dir /srv/data)`,
      ]),
    );
    expect(() => requireExistingBuckets(config, ['archive', 'photos'], '/srv/data')).not.toThrow();
  });
});
