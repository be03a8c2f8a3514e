import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(__dirname, '..', 'fixtures', 'replies');

/** A recorded server reply, byte for byte. */
export function reply(name: string): string {
  return readFileSync(join(dir, name), 'utf8');
}
