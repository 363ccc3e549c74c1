// `npm run bench`: runs every benchmark of scripts/bench/ in turn (each prints its figures and
// its ratios against a baseline measured in the same run). `npm run bench -- filter server`
// runs only those. Options after the names go to the benchmarks that take them
// (`npm run bench -- soak --minutes 30 --database postgres`).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'index.ts')
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();
const args = process.argv.slice(2);
const firstOption = args.findIndex((arg) => arg.startsWith('--'));
const wanted = firstOption === -1 ? args : args.slice(0, firstOption);
const options = firstOption === -1 ? [] : args.slice(firstOption);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`\n=== ${name} ===`);
  const module = (await import(pathToFileURL(path.join(here, `${name}.ts`)).href)) as { run(options?: string[]): Promise<void> };
  await module.run(options);
}
