import { createRequire } from 'node:module';

/** The workerd executable of the `workerd` package (its platform's binary package). */
export function workerdBinary(): string {
  const require = createRequire(import.meta.url);
  return (require('workerd') as { default: string }).default;
}
