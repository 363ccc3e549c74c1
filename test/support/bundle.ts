import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const bundlePath = path.resolve(import.meta.dirname, '../../generated/openapi.yaml');

type Json = Record<string, unknown>;

/** The bundled OpenAPI document as plain data. */
export function loadBundle(): Json {
  return parse(readFileSync(bundlePath, 'utf8')) as Json;
}

export interface OperationInfo {
  method: string;
  path: string;
  operationId: string;
  summary: string;
  operation: Json;
}

export function operationsOf(doc: Json): OperationInfo[] {
  const out: OperationInfo[] = [];
  for (const [p, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
      const operation = item[method] as Json | undefined;
      if (operation) {
        out.push({ method, path: p, operationId: operation.operationId as string, summary: operation.summary as string, operation });
      }
    }
  }
  return out;
}

/** The value of the first named example of an operation's response (what Prism serves). */
export function firstExample(doc: Json, operation: Json, status: string): unknown {
  const components = doc.components as Record<string, Record<string, Json>>;
  let response = (operation.responses as Record<string, Json>)[status]!;
  if (typeof response.$ref === 'string') response = components.responses![response.$ref.split('/').pop()!]!;
  const content = response.content as Record<string, Json>;
  // JSON where the operation answers JSON; otherwise its one media type (an object's bytes).
  const media = content['application/json'] ?? Object.values(content)[0]!;
  let example = Object.values(media.examples as Record<string, Json>)[0]!;
  if (typeof example.$ref === 'string') example = components.examples![example.$ref.split('/').pop()!]!;
  return example.value;
}
