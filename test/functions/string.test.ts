import { afterAll, beforeAll, describe as group, expect, it } from 'vitest';
import { compareAll, f8, i4, i8, num, ours, Pg, rng, txt, type Arg } from './harness.js';
import { T } from '../../src/common/types.js';

let pg: Pg;
beforeAll(async () => {
  pg = await Pg.start();
});
afterAll(async () => {
  await pg.close();
});

type Case = { name: string; args: Arg[] };
const S = ['', 'a', 'abc', 'Hello World', '  padded  ', 'héllo wörld', 'naïve café', '😀x😀', 'a,b,,c', 'xxabcxx', 'ÉCOLE élève', 'foo_bar-baz 3rd'];

group('string functions', () => {
  it('one-argument functions', async () => {
    const fns = ['length', 'char_length', 'character_length', 'octet_length', 'lower', 'upper', 'initcap', 'reverse', 'md5', 'ascii', 'ltrim', 'rtrim', 'btrim', 'quote_ident', 'quote_literal'];
    const cases: Case[] = fns.flatMap((name) => S.map((s) => ({ name, args: [txt(s)] })));
    cases.push({ name: 'quote_literal', args: [txt("it's a \\ test")] }, { name: 'quote_ident', args: [txt('select')] }, { name: 'quote_ident', args: [txt('Ab"c')] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('substr / substring / left / right / repeat', async () => {
    const cases: Case[] = [];
    for (const s of ['abcdef', '😀x😀yz', '']) {
      for (const a of [-3, -1, 0, 1, 2, 5, 7, 10]) {
        cases.push({ name: 'substr', args: [txt(s), i4(a)] }, { name: 'left', args: [txt(s), i4(a)] }, { name: 'right', args: [txt(s), i4(a)] }, { name: 'repeat', args: [txt(s), i4(a)] });
        for (const n of [-1, 0, 1, 2, 4, 100]) cases.push({ name: 'substring', args: [txt(s), i4(a), i4(n)] });
      }
    }
    cases.push({ name: 'repeat', args: [txt('ab'), i4(600000000)] }, { name: 'substr', args: [txt('abc'), i4(2147483647), i4(2147483647)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('position / strpos / starts_with / replace / translate / split_part', async () => {
    const cases: Case[] = [];
    const subs = ['', 'a', 'b', 'bc', 'zz', '😀', 'x😀'];
    for (const s of ['abcabc', '😀x😀yz', '', 'a,b,,c']) {
      for (const u of subs) {
        cases.push({ name: 'position', args: [txt(s), txt(u)] }, { name: 'strpos', args: [txt(s), txt(u)] }, { name: 'starts_with', args: [txt(s), txt(u)] });
        cases.push({ name: 'replace', args: [txt(s), txt(u), txt('<>')] }, { name: 'translate', args: [txt(s), txt(u), txt('Q')] });
      }
      for (const d of [',', '', 'b', ',,']) for (const n of [-3, -1, 0, 1, 2, 4]) cases.push({ name: 'split_part', args: [txt(s), txt(d), i4(n)] });
    }
    cases.push({ name: 'translate', args: [txt('12345'), txt('143'), txt('ax')] }, { name: 'translate', args: [txt('aabb'), txt('aba'), txt('xyz')] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('lpad / rpad / trim with characters', async () => {
    const cases: Case[] = [];
    for (const s of ['abc', '😀é', '']) for (const n of [-1, 0, 2, 3, 5, 8]) for (const f of [' ', 'xy', '', '😀']) {
      cases.push({ name: 'lpad', args: [txt(s), i4(n), txt(f)] }, { name: 'rpad', args: [txt(s), i4(n), txt(f)] });
    }
    for (const s of ['xxabcxx', 'xyxabcyx', '😀a😀', '']) for (const c of ['x', 'xy', '', '😀', 'abcxy']) {
      for (const name of ['ltrim', 'rtrim', 'btrim']) cases.push({ name, args: [txt(s), txt(c)] });
    }
    cases.push({ name: 'lpad', args: [txt('abc'), i4(5)] }, { name: 'rpad', args: [txt('abc'), i4(5)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('chr / to_hex', async () => {
    const cases: Case[] = [];
    for (const n of [-1, 0, 65, 233, 128512, 55296, 1114111, 1114112]) cases.push({ name: 'chr', args: [i4(n)] });
    for (const n of [0, 255, -1, 2147483647, -2147483648]) cases.push({ name: 'to_hex', args: [i4(n)] });
    for (const n of [0, -1, 9223372036854775807n, -9223372036854775808n, 2 ** 40]) cases.push({ name: 'to_hex', args: [i8(n)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('concat / concat_ws / format with typed and null arguments', async () => {
    const cases: Case[] = [
      { name: 'concat', args: [txt('a'), txt(null), i4(42), f8(1.5), num('2.50'), { type: 'bool', value: true }] },
      { name: 'concat', args: [txt(null)] },
      { name: 'concat', args: [{ type: 'date', value: 19000 }, txt('|'), { type: 'timestamp', value: 1.7e15 }] },
      { name: 'concat_ws', args: [txt(', '), txt('a'), txt(null), i4(-7), f8(1e20)] },
      { name: 'concat_ws', args: [txt(null), txt('a')] },
      { name: 'format', args: [txt('Hello %s, %I and %L; %%')] },
      { name: 'format', args: [txt('%s|%I|%L'), txt('x'), txt('Some Table'), txt("O'Reilly")] },
      { name: 'format', args: [txt('%s|%L|%s'), txt(null), txt(null), i4(5)] },
      { name: 'format', args: [txt('%2$s %1$s %2$s'), txt('a'), txt('b')] },
      { name: 'format', args: [txt('[%5s|%-5s|%*s]'), txt('ab'), txt('cd'), i4(4), txt('e')] },
      { name: 'format', args: [txt('%s %s'), txt('only')] },
      { name: 'format', args: [txt('%z'), txt('x')] },
      { name: 'format', args: [txt('%I'), txt(null)] },
      { name: 'format', args: [txt('%0$s'), txt('x')] },
      { name: 'format', args: [txt('abc %'), txt('x')] },
      { name: 'format', args: [txt(null), txt('x')] },
    ];
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('|| with text and with other types', async () => {
    const cases: Case[] = [
      { name: '||', args: [txt('ab'), txt('cd')] },
      { name: '||', args: [txt('n='), i4(5)] },
      { name: '||', args: [f8(0.1), txt('!')] },
      { name: '||', args: [txt('d='), { type: 'date', value: -1 }] },
      { name: '||', args: [txt('x'), txt(null)] },
    ];
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('random strings through length/upper/reverse/substr', async () => {
    const r = rng(3);
    const alphabet = ['a', 'B', ' ', 'é', '😀', ',', 'z', 'Ω', '_'];
    const cases: Case[] = [];
    for (let k = 0; k < 100; k++) {
      const s = Array.from({ length: Math.floor(r() * 12) }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
      const a = Math.floor(r() * 14) - 3;
      const n = Math.floor(r() * 8);
      cases.push({ name: 'length', args: [txt(s)] }, { name: 'upper', args: [txt(s)] }, { name: 'reverse', args: [txt(s)] });
      cases.push({ name: 'substring', args: [txt(s), i4(a), i4(n)] }, { name: 'initcap', args: [txt(s)] }, { name: 'split_part', args: [txt(s), txt(','), i4(n - 3 || 1)] });
    }
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('non-strict functions are marked so', () => {
    expect(ours('concat', [txt(null), txt('x')])).toEqual({ ok: 'x', type: 'text' });
    expect(ours('concat_ws', [txt('-'), txt(null), txt('x'), txt('y')])).toEqual({ ok: 'x-y', type: 'text' });
    void T;
  });
});

group('LIKE and regular expressions', () => {
  it('LIKE / ILIKE and negations', async () => {
    const texts = ['', 'abc', 'ABC', 'a%c', 'a_c', 'a\\c', 'aXc', 'éclair', 'ÉCLAIR', '😀bc', 'abcabc', 'ab'];
    const pats = ['', '%', '_', 'a%', '%c', 'a_c', 'a\\%c', 'a\\_c', 'a\\\\c', '%b%', '_b_', 'abc', 'ABC', 'é%', '😀%', '%a%a%', 'a\\', 'ab\\', '\\a\\b\\c', '%%%c'];
    const cases: Case[] = [];
    for (const t of texts) for (const p of pats) for (const name of ['~~', '!~~', '~~*', '!~~*']) cases.push({ name, args: [txt(t), txt(p)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('like_escape', async () => {
    const cases: Case[] = [];
    for (const p of ['a#%b', 'a#_b', 'a\\b', 'a##b', 'a%', 'a#']) for (const e of ['#', '', '\\', '##']) cases.push({ name: 'like_escape', args: [txt(p), txt(e)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('regex operators', async () => {
    const texts = ['', 'abc', 'ABC', 'foo bar', 'foo\nbar', 'a1b22c333', 'héllo', '😀😀', 'x.y', 'the cat sat'];
    const pats = ['', 'a', '^a', 'c$', '^abc$', 'b+', '[0-9]{2,}', '[[:digit:]]+', '[[:alpha:]]+$', '^.$', '^..$', 'o.b', '\\mcat\\M', '\\ycat', '(a|b)c', 'x\\.y', '[^a-z]', '(?i)abc', '^foo$', 'a{2,1}', '(', '[abc', '[]a]', '\\d\\s?', 'bar$'];
    const cases: Case[] = [];
    for (const t of texts) for (const p of pats) for (const name of ['~', '~*', '!~', '!~*']) cases.push({ name, args: [txt(t), txt(p)] });
    // Error messages of the regex compiler differ in wording for some invalid patterns.
    expect(await compareAll(pg, cases, { codeOnly: true })).toEqual([]);
  });
  it('regexp_replace / regexp_like / regexp_count', async () => {
    const cases: Case[] = [];
    const srcs = ['abcabc', 'foo bar baz', 'aaa', '', 'Hello World', 'x😀y😀'];
    const pats: [string, string][] = [['b', 'X'], ['(a)(b)', '\\2\\1'], ['a*', '-'], ['o', '[\\&]'], ['\\s+', '_'], ['(?i)hello', 'Bye'], ['😀', '!'], ['^', '>'], ['[aeiou]', '\\\\']];
    for (const s of srcs) for (const [p, r] of pats) {
      cases.push({ name: 'regexp_replace', args: [txt(s), txt(p), txt(r)] });
      for (const f of ['g', 'i', 'gi', 'z']) cases.push({ name: 'regexp_replace', args: [txt(s), txt(p), txt(r), txt(f)] });
      cases.push({ name: 'regexp_like', args: [txt(s), txt(p)] }, { name: 'regexp_count', args: [txt(s), txt(p)] });
      cases.push({ name: 'regexp_count', args: [txt(s), txt(p), i4(2)] }, { name: 'regexp_like', args: [txt(s), txt(p), txt('i')] });
    }
    cases.push({ name: 'regexp_like', args: [txt('a'), txt('a'), txt('g')] }, { name: 'regexp_count', args: [txt('a'), txt('a'), i4(0)] });
    for (const s of srcs) for (const p of ['o.b', 'o(.)b', 'x', 'a+', '(b)(c)', '😀.']) {
      cases.push({ name: 'substring', args: [txt(s), txt(p)] }, { name: 'regexp_substr', args: [txt(s), txt(p)] });
      for (const st of [1, 2, 5, 20]) for (const n of [1, 2]) cases.push({ name: 'regexp_substr', args: [txt(s), txt(p), i4(st), i4(n)] });
      cases.push({ name: 'regexp_substr', args: [txt(s), txt(p), i4(1), i4(1), txt('i'), i4(1)] });
    }
    for (const s of S) cases.push({ name: 'bit_length', args: [txt(s)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});
