import type { ChildProcess } from 'node:child_process';

/**
 * Waits for a started command's `Ready on <url> (pid <n>)` line (the line every face of the
 * platform prints once it listens); rejects, with what it printed, if it ends first. Resolves the
 * match and everything printed up to it.
 */
export function readyLine(child: ChildProcess, what: string): Promise<{ match: RegExpExecArray; output: string }> {
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      const match = /^Ready on (http:\/\/\S+) \(pid (\d+)\)$/m.exec(output);
      if (match) resolve({ match, output });
    });
    child.on('exit', (code) => reject(new Error(`${what} ended (exit ${code}) before it was ready:\n${output}`)));
  });
}
