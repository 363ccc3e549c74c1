// What the published page holds beside the API's operations: the bucket binding's reference,
// generated from src/bucket/contract.d.ts (never copied), the S3 endpoint's page, and links to
// the guides in docs/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { bindingReference, contractFile } from '../../scripts/binding-reference';
import { publishedDocument } from '../../scripts/docs';

type Published = {
  info: { description: string };
  tags: { name: string; description?: string; 'x-traitTag'?: boolean }[];
  'x-tagGroups': { name: string; tags: string[] }[];
};

const published = publishedDocument() as Published;
const tag = (name: string) => published.tags.find((entry) => entry.name === name);

test('the bucket binding reference has a section for every declaration the contract exports', () => {
  const contract = readFileSync(contractFile, 'utf8');
  const exported = [...contract.matchAll(/^export (?:interface|type) (\w+)/gm)].map((match) => match[1]!);
  expect(exported).toContain('Bucket');
  const reference = tag('Bucket binding')!;
  expect(reference['x-traitTag']).toBe(true);
  const headings = [...reference.description!.matchAll(/^### (\w+)/gm)].map((match) => match[1]!);
  expect(headings).toEqual(exported);
  // Members with their signatures and the contract's own words.
  expect(reference.description).toContain('| `list(options?: ListOptions): Promise<ListResult>` | One page of keys; by default the first 1000 entries. |');
  expect(reference.description).toContain('A missing key is never an error for `head`');
});

test('the reference follows the contract: a member added to it appears', () => {
  const scratch = path.join(path.dirname(contractFile), '..', '..', 'test-artifacts');
  const copy = path.join(scratch, 'contract-copy.d.ts');
  const contract = readFileSync(contractFile, 'utf8').replace(
    'export interface Bucket {',
    'export interface Bucket {\n  /** Counts the objects. */\n  count(): Promise<number>;',
  );
  mkdirSync(scratch, { recursive: true });
  writeFileSync(copy, contract);
  expect(bindingReference(copy)).toContain('| `count(): Promise<number>` | Counts the objects. |');
});

test('the S3 endpoint page and the guides are reachable from the published page', () => {
  const s3 = tag('S3 endpoint')!;
  expect(s3['x-traitTag']).toBe(true);
  expect(s3.description).toContain('npm run s3');
  // Links of the guide lead to the docs folder beside dist/.
  expect(s3.description).not.toMatch(/\]\((?!\.\.\/docs\/|https?:|#)/);
  expect(published['x-tagGroups'].at(-1)).toEqual({ name: 'Beyond the management API', tags: ['Bucket binding', 'S3 endpoint'] });
  for (const page of ['server.md', 'mock-and-client.md', 'rules-language.md', 'buckets-and-workers.md', 's3-endpoint.md', 'performance.md']) {
    expect(published.info.description).toContain(`](../docs/${page})`);
  }
});
