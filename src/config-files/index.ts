/**
 * Reading the files users configure the toolkit with, in the platform tooling's own syntaxes,
 * for every command that takes one (the worker host, the S3 endpoint):
 *
 * - `parseConfigText(text, file, format)`: TOML or JSON with comments (`formatOfFile(path)`
 *   tells which), syntax errors with line and column.
 * - `parseDevVars(text, file)`: `KEY=value` files (`.dev.vars`, credentials files), read by
 *   dotenv as the platform's tooling reads them, with every line it would skip reported.
 * - `readTextFile(path, optional?)`: a file's text, or a problem naming it.
 * - `ProblemList` collects problems of one file (key path or line:column, and the reason) and
 *   throws them at once as a `ConfigFileError`, so all can be fixed in one pass.
 */
export { parseDevVars } from './dev-vars';
export { formatOfFile, parseConfigText, type ConfigFormat } from './parse-config-text';
export { ConfigFileError, ProblemList } from './problems';
export { readTextFile } from './read-text-file';
