import { readFileSync } from 'node:fs';
import { projectFile } from '../../project-files';

/** The bundled document the server validates against (generated/openapi.json, the JSON form of the bundle). */
export const bundlePath = projectFile('generated', 'openapi.json');

export const basePath = '/client/v4';

let cached: Record<string, unknown> | undefined;

/** A fresh copy of the bundled document (the validator mutates what it is given). */
export function loadDocument(): Record<string, unknown> {
  cached ??= JSON.parse(readFileSync(bundlePath, 'utf8')) as Record<string, unknown>;
  return structuredClone(cached);
}

/**
 * The document as the validators take it: Ajv's `discriminator` keyword finds each branch by
 * its `const` action and refuses `mapping`, which is only there for docs and generated types.
 * The examples (a third of the document) go too: they validate nothing, and the validator hands
 * the whole document to Ajv, which walks every node of it once per route it compiles.
 */
export function loadValidationDocument(): Record<string, unknown> {
  const document = loadDocument();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const discriminator = record.discriminator as Record<string, unknown> | undefined;
    if (discriminator && typeof discriminator === 'object') delete discriminator.mapping;
    if (isExampleMap(record.examples)) delete record.examples;
    Object.values(record).forEach(visit);
  };
  visit(document);
  delete (document.components as Record<string, unknown> | undefined)?.examples;
  wrapDiscriminatedBodies(document);
  return document;
}

/**
 * The `examples` of a media type or a parameter: Example Objects (a `value`) or references to
 * them by name. A schema property that happens to be called `examples` is a schema, and stays.
 */
function isExampleMap(node: unknown): boolean {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return false;
  const entries = Object.values(node);
  return (
    entries.length > 0 &&
    entries.every((entry) => {
      const example = entry as { $ref?: unknown; value?: unknown } | null;
      return (
        example !== null &&
        typeof example === 'object' &&
        ((typeof example.$ref === 'string' && example.$ref.startsWith('#/components/examples/')) || 'value' in example)
      );
    })
  );
}

/**
 * A request body whose schema is a discriminated union itself (one rule added on its own) goes
 * through the request validator's own discriminator handling, which needs the `mapping` removed
 * above; one level of `allOf` hands the union to Ajv's keyword, as for rules inside a list.
 */
function wrapDiscriminatedBodies(document: Record<string, unknown>): void {
  const schemas = ((document.components as Record<string, unknown> | undefined)?.schemas ?? {}) as Record<string, { discriminator?: unknown }>;
  const prefix = '#/components/schemas/';
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const operation of Object.values(item)) {
      const content = (operation as { requestBody?: { content?: Record<string, { schema?: { $ref?: string; allOf?: unknown[] } }> } } | null)?.requestBody?.content;
      const media = content?.['application/json'];
      const ref = media?.schema?.$ref;
      if (media && ref?.startsWith(prefix) && schemas[ref.slice(prefix.length)]?.discriminator) media.schema = { allOf: [{ $ref: ref }] };
    }
  }
}

/** What the document says that makes the validator's complaints readable. */
export interface DocumentWording {
  /** The `x-pattern-message` of each pattern that carries one, keyed by the pattern. */
  patterns: ReadonlyMap<string, string>;
  /** The values each discriminating property takes (a rule's `action`), from the discriminators' mappings. */
  tags: ReadonlyMap<string, readonly string[]>;
}

export function documentWording(document: unknown): DocumentWording {
  const patterns = new Map<string, string>();
  const tags = new Map<string, string[]>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === 'string' && typeof record['x-pattern-message'] === 'string') {
      patterns.set(record.pattern, record['x-pattern-message']);
    }
    const discriminator = record.discriminator as { propertyName?: unknown; mapping?: unknown } | undefined;
    if (typeof discriminator?.propertyName === 'string' && typeof discriminator.mapping === 'object' && discriminator.mapping !== null) {
      const values = tags.get(discriminator.propertyName) ?? [];
      for (const value of Object.keys(discriminator.mapping)) if (!values.includes(value)) values.push(value);
      tags.set(discriminator.propertyName, values);
    }
    Object.values(record).forEach(visit);
  };
  visit(document);
  return { patterns, tags };
}
