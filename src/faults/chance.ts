import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/**
 * Yes-or-no draws with a fixed chance from a seeded generator: the n-th draw of a given seed is
 * the same on every run and every machine, so a failure seen once can be replayed.
 */
export function seededChance(probability: number, seed: number): () => boolean {
  const generator = xoroshiro128plus(seed);
  return () => uniformFloat64(generator) < probability;
}
