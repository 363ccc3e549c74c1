// Fails when generated/ differs from what `npm run generate` produces from openapi/.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from './generate';
import { root } from './tools';

export async function findDrift(): Promise<string[]> {
  const fresh = mkdtempSync(path.join(os.tmpdir(), 'generated-'));
  try {
    await generate(fresh);
    const committed = path.join(root, 'generated');
    const names = new Set([...readdirSync(fresh), ...readdirSync(committed)]);
    return [...names].filter((name) => {
      const read = (dir: string) => {
        try {
          return readFileSync(path.join(dir, name), 'utf8');
        } catch {
          return undefined;
        }
      };
      return read(fresh) !== read(committed);
    });
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const drifted = await findDrift();
  if (drifted.length > 0) {
    console.error(`generated/ is stale (${drifted.join(', ')}): run \`npm run generate\` and commit the result.`);
    process.exit(1);
  }
  console.log('generated/ matches openapi/');
}
