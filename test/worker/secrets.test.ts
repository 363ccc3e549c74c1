import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadWorkerConfig, resolveSecrets, ConfigFileError } from '../../src/worker';
import { configDirectory, configFile } from './config-files';

/** A configuration in a fresh directory, with `devVars` as its .dev.vars file when given. */
function setUp(configBody: string, devVars?: string) {
  const directory = configDirectory();
  if (devVars !== undefined) writeFileSync(join(directory, '.dev.vars'), devVars);
  const config = loadWorkerConfig(configFile('wrangler.toml', `main = "worker.ts"\n${configBody}`, directory));
  return { config, devVarsFile: join(directory, '.dev.vars') };
}

function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    return (error as ConfigFileError).problems;
  }
  throw new Error('no problem reported');
}

const REQUIRED = '[secrets]\nrequired = ["AUTH_KEY_SECRET", "API_TOKEN"]';

describe('declared secrets ([secrets] required)', () => {
  test('come from the environment first, then from .dev.vars; other .dev.vars entries are left out', () => {
    const { config } = setUp(REQUIRED, 'AUTH_KEY_SECRET=from-file\nAPI_TOKEN=token-from-file\nUNDECLARED=x\n');
    expect(resolveSecrets(config, { AUTH_KEY_SECRET: 'from-env', PATH: '/bin' })).toEqual({
      values: { AUTH_KEY_SECRET: 'from-env', API_TOKEN: 'token-from-file' },
      sources: { AUTH_KEY_SECRET: 'environment', API_TOKEN: '.dev.vars' },
    });
  });

  test('work without a .dev.vars file', () => {
    const { config } = setUp(REQUIRED);
    expect(resolveSecrets(config, { AUTH_KEY_SECRET: 'a', API_TOKEN: 'b' }).values).toEqual({ AUTH_KEY_SECRET: 'a', API_TOKEN: 'b' });
  });

  test('a missing or empty one stops the start, naming both places to set it', () => {
    const { config, devVarsFile } = setUp(REQUIRED, 'API_TOKEN=\n');
    expect(problems(() => resolveSecrets(config, {}))).toEqual([
      `${config.file}: secrets.required[0]: AUTH_KEY_SECRET is not set: export AUTH_KEY_SECRET in the environment or add a line AUTH_KEY_SECRET=... to ${devVarsFile}`,
      `${config.file}: secrets.required[1]: API_TOKEN is set but empty (in the .dev.vars)`,
    ]);
    expect(problems(() => resolveSecrets(config, { AUTH_KEY_SECRET: '', API_TOKEN: 'x' }))).toEqual([
      `${config.file}: secrets.required[0]: AUTH_KEY_SECRET is set but empty (in the environment)`,
    ]);
  });
});

describe('without [secrets]', () => {
  test('every .dev.vars entry is a secret and the environment is not read', () => {
    const { config } = setUp('', 'A=1\nB=two\n');
    expect(resolveSecrets(config, { A: 'ignored', C: 'ignored' })).toEqual({
      values: { A: '1', B: 'two' },
      sources: { A: '.dev.vars', B: '.dev.vars' },
    });
  });

  test('no .dev.vars: no secrets', () => {
    expect(resolveSecrets(setUp('').config, { A: '1' })).toEqual({ values: {}, sources: {} });
  });

  test('a .dev.vars entry may not take the name of a binding or a var', () => {
    const { config, devVarsFile } = setUp('[vars]\nMODE = "x"\n[[r2_buckets]]\nbinding = "B"\nbucket_name = "one"', 'MODE=y\nB=z\nOK=1');
    expect(problems(() => resolveSecrets(config, {}))).toEqual([
      `${devVarsFile}: MODE: the name is already bound by ${config.file}`,
      `${devVarsFile}: B: the name is already bound by ${config.file}`,
    ]);
  });
});

describe('the .dev.vars syntax', () => {
  const read = (text: string) => resolveSecrets(setUp('', text).config, {}).values;

  test('comments, blank lines, export, spaces around =, CRLF and a byte order mark', () => {
    expect(read('\uFEFF# local secrets\r\n\r\nexport A=1\r\n  B = two words  \r\nC=\r\n')).toEqual({ A: '1', B: 'two words', C: '' });
  });

  test('quoted values as the platform tooling reads them (dotenv): single as written, double with \\n only, across lines, # starts a comment', () => {
    const text = [
      `S='it is \\n literal' # comment`,
      'D="tab\\there \\"quoted\\" back\\\\slash"',
      'PEM="-----BEGIN KEY-----',
      'abc=def',
      '-----END KEY-----"',
      'HASH=value # trailing comment',
      'KEEP=value#not-a-comment',
      "EMPTY=''",
    ].join('\n');
    expect(read(text)).toEqual({
      S: 'it is \\n literal',
      // Only \n and \r are escapes in double quotes; other backslashes stay as written.
      D: 'tab\\there \\"quoted\\" back\\\\slash',
      PEM: '-----BEGIN KEY-----\nabc=def\n-----END KEY-----',
      HASH: 'value',
      KEEP: 'value',
      EMPTY: '',
    });
  });

  test('the other spellings dotenv takes: KEY: value, dots and dashes in keys, back quotes, escaped quotes', () => {
    const text = ['A: colon form', 'db.host=localhost', 'api-key=k', 'T=`back quoted`', 'E="say \\"hi\\"\n twice"'].join('\n');
    expect(read(text)).toEqual({ A: 'colon form', 'db.host': 'localhost', 'api-key': 'k', T: 'back quoted', E: 'say \\"hi\\"\n twice' });
  });

  test('mistakes are reported by line, never quoting a value', () => {
    const text = ['GOOD=1', 'not an assignment', '=nokey', 'A="s3cr3t-one', 'B="v4lue" trailing', 'GOOD=2', "C='s3cr3t-three"].join('\n');
    const { config, devVarsFile } = setUp('', text);
    const reported = problems(() => resolveSecrets(config, {}));
    expect(reported).toEqual([
      `${devVarsFile}:2:1: expected KEY=value (KEY: letters, digits, _, . and -)`,
      `${devVarsFile}:3:1: expected KEY=value (KEY: letters, digits, _, . and -)`,
      // A's quote closes on the next line, where text follows it.
      `${devVarsFile}:4:3: A: unexpected text after the closing quote`,
      `${devVarsFile}:5:3: B: unexpected text after the closing quote`,
      `${devVarsFile}:6:1: GOOD is set twice`,
      `${devVarsFile}:7:3: C: the single quote is never closed`,
    ]);
    expect(reported.join('\n')).not.toMatch(/s3cr3t|v4lue/);
  });
});
