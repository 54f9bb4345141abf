const LITERALS = ['true', 'false', 'null'];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings may not hold raw control characters.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Stop {
  constructor(readonly offset: number) {}
}

/**
 * Where JSON text stops being valid, as an offset into `text` (Node 20's
 * `JSON.parse` messages often give none); null when it is valid.
 */
export function jsonErrorOffset(text: string): number | null {
  let at = 0;
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at++;
  };
  const match = (pattern: RegExp): boolean => {
    pattern.lastIndex = at;
    if (!pattern.test(text)) return false;
    at = pattern.lastIndex;
    return true;
  };
  const expect = (character: string) => {
    space();
    if (text[at] !== character) throw new Stop(at);
    at++;
  };
  const value = (): void => {
    space();
    const character = text[at];
    if (character === '{' || character === '[') {
      const close = character === '{' ? '}' : ']';
      at++;
      space();
      if (text[at] === close) {
        at++;
        return;
      }
      for (;;) {
        if (close === '}') {
          space();
          if (!match(STRING)) throw new Stop(at);
          expect(':');
        }
        value();
        space();
        if (text[at] !== ',') {
          expect(close);
          return;
        }
        at++;
      }
    }
    if (match(STRING) || match(NUMBER)) return;
    const literal = LITERALS.find((word) => text.startsWith(word, at));
    if (literal === undefined) throw new Stop(at);
    at += literal.length;
  };
  try {
    value();
    space();
    return at < text.length ? at : null;
  } catch (error) {
    if (error instanceof Stop) return error.offset;
    throw error;
  }
}
