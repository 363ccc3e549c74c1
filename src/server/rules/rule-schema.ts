import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadValidationDocument } from '../http/openapi-document';

let validateRule: ValidateFunction | undefined;

/**
 * Checks a rule against the document's Rule schema (discriminated by action). Used where the
 * request schema cannot see the whole rule: a PATCH merged into the stored rule.
 */
export function ruleSchemaErrors(rule: unknown): string[] {
  if (!validateRule) {
    const document = loadValidationDocument();
    const ajv = new Ajv2020({ strict: false, discriminator: true, allErrors: false });
    addFormats(ajv);
    // readOnly fields (last_updated, categories...) are the server's own on a stored rule.
    ajv.removeKeyword('readOnly');
    ajv.addKeyword({ keyword: 'readOnly' });
    ajv.addSchema({ ...document, $id: 'api' }, 'api');
    validateRule = ajv.getSchema('api#/components/schemas/Rule')!;
  }
  if (validateRule(rule)) return [];
  return (validateRule.errors ?? []).map((e: ErrorObject) => `${e.instancePath.replace(/^\//, '') || 'rule'} ${e.message ?? 'is invalid'}`);
}
