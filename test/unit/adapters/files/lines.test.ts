import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines, type Line } from '../../../../src/adapters/files/lines.js';

async function collect(chunks: (string | Buffer)[], max = 100): Promise<(string | number)[]> {
  const out: (string | number)[] = [];
  for await (const line of readLines(Readable.from(chunks), max)) out.push(show(line));
  return out;
}

const show = (line: Line): string | number => (line.oversize ? line.size : line.bytes.toString('utf8'));

describe('readLines', () => {
  it('splits on LF, drops CR, keeps empty lines, yields a last line without LF', async () => {
    expect(await collect(['a\r\nb', 'c\n\nd'])).toEqual(['a', 'bc', '', 'd']);
  });

  it('does not yield an extra line after a final LF', async () => {
    expect(await collect(['a\nb\n'])).toEqual(['a', 'b']);
  });

  it('counts an oversize line across chunks without keeping it', async () => {
    expect(await collect(['x'.repeat(60), 'y'.repeat(60), 'z\nok\n'])).toEqual([121, 'ok']);
  });

  it("accepts a line of exactly the limit with a CRLF ending (the CR is not the record's), and refuses one byte more", async () => {
    expect(await collect([`${'x'.repeat(100)}\r\n`, `${'y'.repeat(100)}\r`, '\n'])).toEqual(['x'.repeat(100), 'y'.repeat(100)]);
    expect(await collect([`${'x'.repeat(101)}\r\n`, 'ok'])).toEqual([102, 'ok']);
    expect(await collect([`${'x'.repeat(101)}\n`])).toEqual([101]);
  });

  it('keeps multi-byte characters split across chunks intact', async () => {
    const bytes = Buffer.from('é€😀\n');
    expect(await collect([bytes.subarray(0, 3), bytes.subarray(3)])).toEqual(['é€😀']);
  });
});
