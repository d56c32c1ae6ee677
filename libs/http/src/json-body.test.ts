import { exceedsJsonDepth, MAX_JSON_BODY_DEPTH } from './json-body';

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const utf8 = (s: string) => Buffer.from(s, 'utf8');

describe('exceedsJsonDepth', () => {
  it('counts arrays and objects alike, on text and on UTF-8 bytes', () => {
    for (const make of [deepArray, deepObject]) {
      for (const text of [(n: number) => make(n), (n: number) => utf8(make(n))]) {
        expect(exceedsJsonDepth(text(MAX_JSON_BODY_DEPTH), MAX_JSON_BODY_DEPTH)).toBe(false);
        expect(exceedsJsonDepth(text(MAX_JSON_BODY_DEPTH + 1), MAX_JSON_BODY_DEPTH)).toBe(true);
        expect(exceedsJsonDepth(text(5000), MAX_JSON_BODY_DEPTH)).toBe(true);
      }
    }
  });

  it('counts depth, not the number of brackets', () => {
    const wide = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ i, v: [i] })));
    expect(exceedsJsonDepth(wide, 3)).toBe(false);
    expect(exceedsJsonDepth(wide, 2)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const s = JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[[\\" and \\\\', c: ['"]]]]{'], d: '\u00e9[\u4e16[' });
    expect(exceedsJsonDepth(s, 2)).toBe(false);
    expect(exceedsJsonDepth(utf8(s), 2)).toBe(false);
    expect(exceedsJsonDepth(JSON.stringify({ a: '\\', b: [[[]]] }), 3)).toBe(true);
  });

  it('needs no stack: a megabyte of brackets is scanned in one pass', () => {
    expect(exceedsJsonDepth('['.repeat(1_000_000), MAX_JSON_BODY_DEPTH)).toBe(true);
  });
});
