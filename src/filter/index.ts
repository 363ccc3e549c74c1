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
 *   (see evaluate/context.ts for how field values are given); `new EvaluationScope(context)`
 *   shares the fields' conversions among the expressions evaluated over one request.
 * - `FIELD_TYPES` lists every field of the scheme with its type.
 * - `phaseViolations(ast, phase)` lists calls to functions the platform
 *   allows only in other phases (the server refuses them in rules).
 *
 * Inside, by what each part does, each reached through its own index.ts:
 * `language/` (the tree, types, scheme, errors: what every stage shares),
 * `literals/`, `parse/`, `evaluate/`, `print/`.
 */
import { type Expression, FilterError, FIELDS, type FilterType } from './language';
import { type CompileOptions, type CompiledFilter, compileFilter } from './evaluate';
import { formatExpression } from './print';
import { parseExpression } from './parse';

export type * from './language/ast';
export { type CompileOptions, type CompiledFilter, EvaluationScope, type FieldValue, FilterContextError, type ListValues, type RequestContext } from './evaluate';
export { FilterError, type FilterType, PHASE_RESTRICTED_FUNCTIONS, type PhaseViolation, phaseViolations, type ScalarType, type Span, typeName } from './language';
export { MAX_EXPRESSION_LENGTH, MAX_NESTING_DEPTH } from './parse';

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
