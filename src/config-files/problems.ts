/**
 * A configuration file that cannot be used. Every problem is one line naming the file, the
 * place in it (`r2_buckets[1].binding`, or `line:column` for syntax) and the reason, so all of
 * them can be fixed in one pass.
 */
export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';

  constructor(
    /** The file the problems are in. */
    readonly file: string,
    /** One line per problem, each starting with the file. */
    readonly problems: string[],
  ) {
    super(problems.join('\n'));
  }
}

/** Collects the problems of one file, each with where in the file it is. */
export class ProblemList {
  readonly #file: string;
  readonly #lines: string[] = [];

  constructor(file: string) {
    this.#file = file;
  }

  /** A problem at a key path (`r2_buckets[0].binding`) or, when empty, with the whole file. */
  add(path: string, reason: string): void {
    this.#lines.push(path === '' ? `${this.#file}: ${reason}` : `${this.#file}: ${path}: ${reason}`);
  }

  /** A problem at a position in the text (syntax), 1-based. */
  addAt(line: number, column: number, reason: string): void {
    this.#lines.push(`${this.#file}:${line}:${column}: ${reason}`);
  }

  /** Adds a last problem and throws them all. */
  fail(path: string, reason: string): never {
    this.add(path, reason);
    throw this.#error();
  }

  /** Adds a last problem at a position and throws them all. */
  failAt(line: number, column: number, reason: string): never {
    this.addAt(line, column, reason);
    throw this.#error();
  }

  throwIfAny(): void {
    if (this.#lines.length > 0) throw this.#error();
  }

  #error(): ConfigFileError {
    return new ConfigFileError(this.#file, [...this.#lines]);
  }
}
