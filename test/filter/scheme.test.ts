import { describe, expect, it } from 'vitest';
import { FIELD_TYPES, typeName } from '../../src/filter/index';
import { FIELDS, FUNCTIONS, paramAt } from '../../src/filter/language/scheme';

describe('scheme loaded from the catalogue', () => {
  it('knows every field with its engine type', () => {
    expect(FIELD_TYPES.size).toBe(180);
    const sample = Object.fromEntries(
      ['http.host', 'cf.threat_score', 'ssl', 'ip.src', 'http.request.headers', 'http.request.headers.names', 'cf.random_seed'].map(
        (name) => [name, typeName(FIELD_TYPES.get(name) ?? 'Bool')],
      ),
    );
    expect(sample).toEqual({
      'http.host': 'Bytes',
      'cf.threat_score': 'Int',
      ssl: 'Bool',
      'ip.src': 'Ip',
      'http.request.headers': 'Map(Array(Bytes))',
      'http.request.headers.names': 'Array(Bytes)',
      'cf.random_seed': 'Bytes',
    });
    expect(typeName(FIELD_TYPES.get('http.request.body.multipart.filenames') ?? 'Bool')).toBe('Array(Array(Bytes))');
  });

  it('keeps the documented type and the deprecation mark', () => {
    expect(FIELDS.get('ip.src')?.documentedType).toBe('IP address');
    expect(FIELDS.get('ip.geoip.country')?.deprecated).toBe(true);
    expect(FIELDS.get('ip.src.country')?.deprecated).toBe(false);
  });

  it('reads function arity, argument kinds and ranges', () => {
    const cidr = FUNCTIONS.get('cidr');
    expect([cidr?.minArgs, cidr?.maxArgs]).toEqual([3, 3]);
    expect(cidr?.params.map((p) => [p.kind, p.range])).toEqual([
      ['field', undefined],
      ['literal', [1, 32]],
      ['literal', [1, 128]],
    ]);
    const concat = FUNCTIONS.get('concat');
    expect([concat?.minArgs, concat?.maxArgs]).toEqual([2, undefined]);
    expect(concat && paramAt(concat, 7)?.name).toBe('values');
    const lower = FUNCTIONS.get('lower');
    expect(lower && paramAt(lower, 1)).toBeUndefined();
  });

  it('derives return types from the arguments where the catalogue says so', () => {
    const concat = FUNCTIONS.get('concat');
    expect(concat?.returnType([{ array: 'Bytes' }, { array: 'Bytes' }])).toEqual({ array: 'Bytes' });
    expect(concat?.returnType(['Bytes', 'Bytes'])).toBe('Bytes');
    expect(FUNCTIONS.get('split')?.returnType(['Bytes', 'Bytes', 'Int'])).toEqual({ array: 'Bytes' });
  });
});
