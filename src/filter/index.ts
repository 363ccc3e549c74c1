/**
 * The rules language: parse, check, print and evaluate filter expressions
 * (`http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24}`).
 *
 * - `validate(expression)` never throws for any string: it answers the typed
 *   tree or the one FilterError the platform's engine would report.
 * - `parse(expression)` answers the tree or throws that FilterError.
 * - `format(ast)` prints a tree back; `parse(format(ast))` gives the same tree
 *   apart from source spans.
 * - `compile(ast, { lists })` gives `evaluate(context)` over a RequestContext
 *   (see context.ts for how field values are given); `new EvaluationScope(context)`
 *   shares the fields' conversions among the expressions evaluated over one request.
 * - `FIELD_TYPES` lists every field of the scheme with its type.
 * - `phaseViolations(ast, phase)` lists calls to functions the platform
 *   allows only in other phases (the server refuses them in rules).
 */
import type { Expression } from './ast';
import { FilterError } from './errors';
import { type CompileOptions, type CompiledFilter, compileFilter } from './evaluator';
import { formatExpression } from './formatter';
import { parseExpression } from './parser';
import { FIELDS } from './scheme';
import type { FilterType } from './types';

export type * from './ast';
export type { FieldValue, RequestContext } from './context';
export { FilterContextError } from './context';
export { EvaluationScope, type CompileOptions, type CompiledFilter } from './evaluator';
export type { ListValues } from './membership';
export { FilterError, type Span } from './errors';
export { MAX_NESTING_DEPTH } from './nesting';
export { MAX_EXPRESSION_LENGTH } from './parser';
export { PHASE_RESTRICTED_FUNCTIONS, type PhaseViolation, phaseViolations } from './phase-functions';
export { type FilterType, type ScalarType, typeName } from './types';

export type ValidationResult = { readonly ok: true; readonly ast: Expression } | { readonly ok: false; readonly error: FilterError };

export function parse(expression: string): Expression {
  return parseExpression(expression);
}

export function validate(expression: string): ValidationResult {
  try {
    return { ok: true, ast: parseExpression(expression) };
  } catch (error) {
    if (error instanceof FilterError) return { ok: false, error };
    throw error;
  }
}

export function format(ast: Expression): string {
  return formatExpression(ast);
}

export function compile(ast: Expression, options?: CompileOptions): CompiledFilter {
  return compileFilter(ast, options);
}

/** Every field of the scheme and its type (e.g. `http.request.headers` is `Map(Array(Bytes))`). */
export const FIELD_TYPES: ReadonlyMap<string, FilterType> = new Map([...FIELDS].map(([name, info]) => [name, info.type]));
