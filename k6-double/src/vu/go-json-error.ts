// res.json() on an invalid body throws k6's message, which wraps Go's encoding/json syntax error:
//   cannot parse json due to an error at line 1, character 2 , error: invalid character 'o' in literal null (expecting 'u')
// V8's JSON.parse messages differ, so this small validator reproduces Go's scanner messages and
// error offsets (for ASCII input; Go counts bytes where this counts UTF-16 units).

class JSONSyntax extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return '\'"\'';
  const q = JSON.stringify(c);
  return "'" + q.slice(1, -1) + "'";
}

class Scanner {
  private i = 0;
  constructor(private readonly s: string) {}

  run(): void {
    this.value();
    this.ws();
    if (this.i < this.s.length) this.fail('after top-level value');
  }

  private fail(context: string): never {
    if (this.i >= this.s.length) throw new JSONSyntax('unexpected end of JSON input', this.s.length);
    throw new JSONSyntax(`invalid character ${quoteChar(this.s[this.i]!)} ${context}`, this.i + 1);
  }

  private ws(): void {
    while (this.i < this.s.length && ' \t\r\n'.includes(this.s[this.i]!)) this.i++;
  }

  private peek(): string | undefined {
    return this.s[this.i];
  }

  private value(): void {
    this.ws();
    const c = this.peek();
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    if (c === 't') return this.literal('true');
    if (c === 'f') return this.literal('false');
    if (c === 'n') return this.literal('null');
    this.fail('looking for beginning of value');
  }

  private object(): void {
    this.i++;
    this.ws();
    if (this.peek() === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      if (this.peek() !== '"') this.fail('looking for beginning of object key string');
      this.string();
      this.ws();
      if (this.peek() !== ':') this.fail('after object key');
      this.i++;
      this.value();
      this.ws();
      const c = this.peek();
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === '}') {
        this.i++;
        return;
      }
      this.fail('after object key:value pair');
    }
  }

  private array(): void {
    this.i++;
    this.ws();
    if (this.peek() === ']') {
      this.i++;
      return;
    }
    for (;;) {
      this.value();
      this.ws();
      const c = this.peek();
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === ']') {
        this.i++;
        return;
      }
      this.fail('after array element');
    }
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('');
      if (c === '"') {
        this.i++;
        return;
      }
      if (c === '\\') {
        this.i++;
        const e = this.peek();
        if (e === 'u') {
          this.i++;
          for (let k = 0; k < 4; k++) {
            if (!/[0-9a-fA-F]/.test(this.peek() ?? '')) this.fail('in \\u hexadecimal character escape');
            this.i++;
          }
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail('in string escape code');
        this.i++;
        continue;
      }
      if (c < ' ') this.fail('in string literal');
      this.i++;
    }
  }

  private digits(context: string): void {
    if (!/[0-9]/.test(this.peek() ?? '')) this.fail(context);
    while (/[0-9]/.test(this.peek() ?? '')) this.i++;
  }

  private number(): void {
    if (this.peek() === '-') this.i++;
    if (this.peek() === '0') this.i++;
    else this.digits('in numeric literal');
    if (this.peek() === '.') {
      this.i++;
      this.digits('after decimal point in numeric literal');
    }
    if (this.peek() === 'e' || this.peek() === 'E') {
      this.i++;
      if (this.peek() === '+' || this.peek() === '-') this.i++;
      this.digits('in exponent of numeric literal');
    }
  }

  private literal(word: string): void {
    for (let k = 0; k < word.length; k++) {
      if (this.peek() !== word[k]) this.fail(`in literal ${word} (expecting ${quoteChar(word[k]!)})`);
      this.i++;
    }
  }
}

/** k6's jsonError text for an invalid JSON document, or null when the text is valid JSON. */
export function k6JSONParseError(text: string): string | null {
  try {
    new Scanner(text).run();
    return null;
  } catch (e) {
    if (!(e instanceof JSONSyntax)) throw e;
    // k6's checkErrorInJSON: counts lines and characters up to and including index == offset.
    let line = 1;
    let character = 0;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '\n') {
        line++;
        character = 0;
      }
      character++;
      if (i === e.offset) break;
    }
    return `cannot parse json due to an error at line ${line}, character ${character} , error: ${e.message}`;
  }
}
