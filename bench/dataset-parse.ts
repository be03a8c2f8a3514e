// How long parseDataset takes on a large file of each format (synthetic text of realistic shape:
// prompts of 200–2,000 characters, ShareGPT conversations of 2–6 turns), plus locating a syntax
// error in a JSON array (the error path). Prints figures; asserts nothing.
//   npx tsx bench/dataset-parse.ts [megabytes=100]
import { locateJsonError, parseDataset, type DatasetFormat } from '../lib/dataset/format';
import { rngFor, randInt } from '../lib/stats/rng';

const MB = Number(process.argv[2] ?? '100');
const target = MB * 1024 * 1024;
const rng = rngFor(1, 'bench');
const WORDS = 'the of model token server request latency batch prompt cache decode draft verify accept length window slice'.split(' ');
const sentence = (chars: number): string => {
  const w: string[] = [];
  let n = 0;
  while (n < chars) {
    const x = WORDS[randInt(rng, 0, WORDS.length)];
    w.push(x);
    n += x.length + 1;
  }
  return w.join(' ');
};

function build(format: DatasetFormat | 'messages'): string {
  const parts: string[] = [];
  let size = 0;
  let i = 0;
  while (size < target) {
    let s: string;
    if (format === 'text') s = sentence(randInt(rng, 200, 2000));
    else if (format === 'jsonl') s = JSON.stringify({ prompt: sentence(randInt(rng, 200, 2000)), output_tokens: randInt(rng, 16, 512), domain: 'chat' });
    else if (format === 'messages')
      s = JSON.stringify({
        messages: [
          { role: 'system', content: 'Be helpful.' },
          { role: 'user', content: sentence(randInt(rng, 200, 2000)) },
        ],
      });
    else {
      const turns = Array.from({ length: randInt(rng, 2, 7) }, (_, t) => ({ from: t % 2 ? 'gpt' : 'human', value: sentence(randInt(rng, 100, 800)) }));
      s = JSON.stringify({ id: `c${i}`, conversations: turns });
    }
    parts.push(s);
    size += s.length + 2;
    i++;
  }
  return format === 'json' ? `[\n${parts.join(',\n')}\n]` : parts.join('\n') + '\n';
}

for (const format of ['text', 'jsonl', 'messages', 'json'] as const) {
  const text = build(format);
  const t0 = performance.now();
  const ds = parseDataset(text, { file: `bench.${format}` });
  const ms = performance.now() - t0;
  const mb = text.length / 1024 / 1024;
  console.log(`${format.padEnd(8)} ${mb.toFixed(0)} MB, ${ds.items.length} items: ${(ms / 1000).toFixed(2)} s (${(mb / (ms / 1000)).toFixed(0)} MB/s)`);
}

{
  const text = build('json');
  // The array closed by '}' instead of ']': found only at the very end.
  const bad = text.slice(0, text.length - 1) + '}';
  const t0 = performance.now();
  const at = locateJsonError(bad);
  const ms = performance.now() - t0;
  console.log(`locate a syntax error near the end of ${(text.length / 1024 / 1024).toFixed(0)} MB of JSON: ${(ms / 1000).toFixed(2)} s (offset ${at})`);
}
