import { readFileSync } from 'node:fs';
import { projectFile } from '../../project-files';
import type { PatternMessages } from './error-mapper';

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
 */
export function loadValidationDocument(): Record<string, unknown> {
  const document = loadDocument();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const discriminator = record.discriminator as Record<string, unknown> | undefined;
    if (discriminator && typeof discriminator === 'object') delete discriminator.mapping;
    Object.values(record).forEach(visit);
  };
  visit(document);
  return document;
}

/** Every `pattern` of the document that carries an `x-pattern-message`, for readable errors. */
export function patternMessages(document: unknown): PatternMessages {
  const found = new Map<string, string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === 'string' && typeof record['x-pattern-message'] === 'string') {
      found.set(record.pattern, record['x-pattern-message']);
    }
    Object.values(record).forEach(visit);
  };
  visit(document);
  return found;
}
