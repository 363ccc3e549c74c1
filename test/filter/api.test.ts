import { describe, expect, it } from 'vitest';
import { FilterError, compile, format, parse, validate } from '../../src/filter/index';

describe('front door', () => {
  it('validate answers the typed tree for a good expression', () => {
    const result = validate('http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24 2001:db8::/32}');
    expect(result.ok).toBe(true);
    expect(result.ok && result.ast).toMatchObject({ kind: 'logical', op: 'and', type: 'Bool', span: { start: 0, end: 86 } });
  });

  it('validate answers the error, and parse throws the same error', () => {
    const expression = 'ip.src in {2001:db8::/2000}';
    const result = validate(expression);
    expect(result.ok).toBe(false);
    const thrown = (() => {
      try {
        parse(expression);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(FilterError);
    expect(!result.ok && result.error.message).toBe((thrown as FilterError).message);
  });

  it('format prints canonical text that parses to the same tree', () => {
    const text = format(parse('(ssl||true)&&!http.host==r#"a"#'));
    expect(text).toBe('(ssl or true) and not http.host eq r#"a"#');
    expect(format(parse(text))).toBe(text);
  });

  it('compile evaluates the same tree against many requests', () => {
    const filter = compile(parse('http.host wildcard "*.example.com" and cf.threat_score lt 10'));
    expect(filter.evaluate({ 'http.host': 'a.example.com', 'cf.threat_score': 1 })).toBe(true);
    expect(filter.evaluate({ 'http.host': 'a.example.com', 'cf.threat_score': 50 })).toBe(false);
    expect(filter.evaluate({})).toBe(false);
  });
});
