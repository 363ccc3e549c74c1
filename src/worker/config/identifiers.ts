// A binding becomes a variable of the worker (`const { MY_BUCKET } = env`), so its name must be
// one that JavaScript accepts as a variable in a strict-mode module.
const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;

const RESERVED = new Set([
  // Keywords and literals.
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do',
  'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in',
  'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try',
  'typeof', 'var', 'void', 'while', 'with', 'yield',
  // Reserved in strict-mode code and modules.
  'await', 'implements', 'interface', 'let', 'package', 'private', 'protected', 'public', 'static',
  'arguments', 'eval',
]);

/** Why `name` cannot be a JavaScript variable name, or undefined when it can. */
export function identifierProblem(name: string): string | undefined {
  if (RESERVED.has(name)) return `${JSON.stringify(name)} is a reserved word in JavaScript and cannot name a variable`;
  if (!IDENTIFIER.test(name)) {
    return `${JSON.stringify(name)} is not a valid JavaScript identifier (letters, digits, _ and $, not starting with a digit)`;
  }
  return undefined;
}
