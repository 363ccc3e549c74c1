/**
 * Functions the platform allows only in some phases. The engine itself knows
 * no phases (so `validate` accepts these functions everywhere, as the
 * platform's validate-expr endpoint does); the platform refuses them in rules
 * of other phases. The table follows the platform's function reference.
 */
import { type Argument, type Expression, type FunctionCall, type ValueExpr, isExpression, isLiteral } from './ast';
import type { Span } from './errors';

/** Rewrite expressions: Transform Rules and dynamic redirects. */
const REWRITE_PHASES = [
  'http_request_transform',
  'http_request_late_transform',
  'http_response_headers_transform',
  'http_request_dynamic_redirect',
] as const;

export const PHASE_RESTRICTED_FUNCTIONS: Readonly<Record<string, readonly string[]>> = {
  regex_replace: REWRITE_PHASES,
  wildcard_replace: REWRITE_PHASES,
  concat: REWRITE_PHASES,
  remove_query_args: REWRITE_PHASES,
  to_string: REWRITE_PHASES,
  uuidv4: ['http_request_transform', 'http_request_late_transform', 'http_response_headers_transform'],
  split: ['http_response_headers_transform', 'http_custom_errors'],
  join: [
    'http_request_transform',
    'http_request_late_transform',
    'http_response_headers_transform',
    'http_request_firewall_custom',
    'http_custom_errors',
  ],
  cidr: ['http_request_firewall_custom', 'http_ratelimit'],
  cidr6: ['http_request_firewall_custom', 'http_ratelimit'],
};

export interface PhaseViolation {
  readonly name: string;
  readonly span: Span;
  /** The phases where the function is allowed. */
  readonly allowed: readonly string[];
}

function* callsInValue(node: ValueExpr): Generator<FunctionCall> {
  if (node.kind === 'index') yield* callsInValue(node.target);
  if (node.kind !== 'call') return;
  yield node;
  for (const arg of node.args) yield* callsInArgument(arg);
}

function* callsInArgument(arg: Argument): Generator<FunctionCall> {
  if (isLiteral(arg)) return;
  if (isExpression(arg)) yield* calls(arg);
  else yield* callsInValue(arg);
}

/** Every function call of an expression, in source order. */
function* calls(node: Expression): Generator<FunctionCall> {
  switch (node.kind) {
    case 'group':
      return yield* calls(node.inner);
    case 'not':
    case 'quantifier':
      return yield* calls(node.operand);
    case 'logical':
      for (const operand of node.operands) yield* calls(operand);
      return;
    case 'truth':
      return yield* callsInValue(node.value);
    case 'comparison':
      return yield* callsInValue(node.lhs);
  }
}

/** The calls of `ast` to functions the platform does not allow in `phase`. */
export function phaseViolations(ast: Expression, phase: string): PhaseViolation[] {
  const found: PhaseViolation[] = [];
  for (const call of calls(ast)) {
    const allowed = PHASE_RESTRICTED_FUNCTIONS[call.name];
    if (allowed && !allowed.includes(phase)) found.push({ name: call.name, span: call.span, allowed });
  }
  return found.sort((a, b) => a.span.start - b.span.start);
}
