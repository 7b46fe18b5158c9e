import { expect } from 'chai';
import busboy from 'busboy';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BoundarySearch from 'streamsearch';

/** What a search reports, merged: haystack runs as Buffers, each match as the string 'match'. */
type Token = Buffer | 'match';

/** The answer from the whole haystack at once: split at every leftmost, non-overlapping occurrence. */
function expectedTokens(haystack: Buffer, needle: Buffer, maxMatches = Infinity): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  let matches = 0;
  while (matches < maxMatches) {
    const at = haystack.indexOf(needle, pos);
    if (at === -1) break;
    if (at > pos) tokens.push(haystack.subarray(pos, at));
    tokens.push('match');
    matches += 1;
    pos = at + needle.length;
  }
  if (pos < haystack.length && matches < maxMatches) tokens.push(haystack.subarray(pos));
  return tokens;
}

function merge(tokens: Token[]): Token[] {
  const merged: Token[] = [];
  for (const token of tokens) {
    const last = merged.at(-1);
    if (token !== 'match' && last !== undefined && last !== 'match') merged[merged.length - 1] = Buffer.concat([last, token]);
    else if (token === 'match' || token.length > 0) merged.push(token);
  }
  return merged;
}

/** Feeds the chunks to a search and records what its callback said, copying what it may reuse. */
function searchTokens(needle: Buffer, chunks: Buffer[], maxMatches = Infinity): Token[] {
  const tokens: Token[] = [];
  const search = new BoundarySearch(needle, (isMatch, data, start, end, isDataSafe) => {
    if (data && end > start) tokens.push(isDataSafe ? data.subarray(start, end) : Buffer.from(data.subarray(start, end)));
    if (isMatch) tokens.push('match');
  });
  search.maxMatches = maxMatches;
  for (const chunk of chunks) {
    if (search.matches >= maxMatches) break;
    search.push(chunk, 0);
  }
  if (search.matches < maxMatches) search.destroy();
  return merge(tokens);
}

/** A small seeded generator, so a failing case can be replayed from its seed. */
function random(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
}

/** A haystack dense in what makes a streaming search go wrong: whole needles, their prefixes, their bytes. */
function adversarialHaystack(next: (n: number) => number, needle: Buffer): Buffer {
  const pieces: Buffer[] = [];
  const count = 1 + next(40);
  for (let i = 0; i < count; i += 1) {
    switch (next(5)) {
      case 0: pieces.push(needle); break;
      case 1: pieces.push(needle.subarray(0, 1 + next(needle.length))); break;
      case 2: pieces.push(needle.subarray(next(needle.length))); break;
      case 3: pieces.push(Buffer.from(Array.from({ length: 1 + next(12) }, () => needle[next(needle.length)] ?? 0))); break;
      default: pieces.push(Buffer.from(Array.from({ length: 1 + next(30) }, () => next(256))));
    }
  }
  return Buffer.concat(pieces);
}

function cut(next: (n: number) => number, haystack: Buffer, largest: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let pos = 0; pos < haystack.length;) {
    const size = next(largest + 1);
    chunks.push(haystack.subarray(pos, pos + size));
    pos += size;
  }
  return chunks;
}

const needles = ['\r\n--boundary42', '\r\n------hfsbench0123456789abcdef', 'abab', 'aab', 'aaaa', 'x', '\r\n--\r\n-'].map((s) => Buffer.from(s));

describe('Boundary search (busboy’s streamsearch on Buffer.indexOf)', () => {
  it('is the module busboy loads', () => {
    const fromBusboy = createRequire(createRequire(import.meta.url).resolve('busboy')).resolve('streamsearch');
    const ours = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../api/upload/boundary-search/index.cjs');
    expect(realpathSync(fromBusboy)).to.equal(realpathSync(ours));
  });

  it('reports the same runs and matches as splitting the whole haystack, however it is cut', () => {
    for (let seed = 1; seed <= 3000; seed += 1) {
      const next = random(seed);
      const needle = needles[seed % needles.length]!;
      const haystack = adversarialHaystack(next, needle);
      const chunks = cut(next, haystack, seed % 3 === 0 ? 3 : needle.length * 3);
      expect(searchTokens(needle, chunks), `seed ${seed}`).to.deep.equal(expectedTokens(haystack, needle));
    }
  });

  it('stops after maxMatches and says where it stopped', () => {
    const needle = Buffer.from('--b');
    const haystack = Buffer.from('one--btwo--bthree--bfour');
    expect(searchTokens(needle, [haystack], 2)).to.deep.equal(expectedTokens(haystack, needle, 2));
    const search = new BoundarySearch(needle, () => undefined);
    search.maxMatches = 1;
    expect(search.push(haystack, 0)).to.equal('one--b'.length);
  });

  it('hands held-back bytes on when the input ends without completing a match', () => {
    const needle = Buffer.from('\r\n--end');
    expect(searchTokens(needle, [Buffer.from('body\r\n-'), Buffer.from('-en')])).to.deep.equal([Buffer.from('body\r\n--en')]);
  });

  it('keeps every byte when a match starts inside bytes it held back (a needle that overlaps itself)', () => {
    // streamsearch 1.1.0 loses the first `a` here.
    const needle = Buffer.from('aab');
    expect(searchTokens(needle, [Buffer.from('a'), Buffer.from('a'), Buffer.from('ab')])).to.deep.equal([Buffer.from('a'), 'match']);
  });

  it('lets busboy parse fields and files whose bytes look like the boundary, in chunks of any size', async () => {
    const boundary = 'frontier';
    const fileBody = Buffer.concat([
      Buffer.from('\r\n--frontie\r\n--frontieR-\r\n-'),
      Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31) % 256)),
      Buffer.from('\r\n--fronti'),
    ]);
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nsee \r\n--front\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      fileBody,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    for (const largest of [1, 2, 7, 13, 64, 1000, body.length]) {
      const next = random(largest);
      const parser = busboy({ headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
      const fields: Record<string, string> = {};
      const files: Buffer[] = [];
      parser.on('field', (name, value) => { fields[name] = value; });
      parser.on('file', (_name, stream) => {
        const parts: Buffer[] = [];
        stream.on('data', (part: Buffer) => parts.push(part));
        stream.on('end', () => files.push(Buffer.concat(parts)));
      });
      const closed = new Promise<void>((resolve, reject) => parser.on('close', resolve).on('error', reject));
      for (const chunk of cut(next, body, largest)) parser.write(chunk);
      parser.end();
      await closed;
      expect(fields, `chunks of up to ${largest}`).to.deep.equal({ note: 'see \r\n--front' });
      expect(files.length).to.equal(1);
      expect(files[0]!.equals(fileBody), `chunks of up to ${largest}`).to.equal(true);
    }
  });
});
