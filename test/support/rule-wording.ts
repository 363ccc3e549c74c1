/**
 * How the server and the mock word a rule whose action the document does not know: as an enum
 * of the discriminator's values, in the document's order.
 */
export const UNKNOWN_ACTION =
  'body/rules/0/action must be equal to one of the allowed values: execute, log_custom_field, skip, block, managed_challenge, js_challenge, challenge, log';
