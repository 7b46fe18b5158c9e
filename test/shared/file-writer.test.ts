import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isAppError } from '../../shared/errors.js';
import { FileWriter } from '../../shared/storage/file-writer.js';
import { failingStream } from '../helpers/streams.js';

describe('FileWriter (the local driver writing behind its input)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hfs-writer-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes every byte in order, over many batches of chunks of any size', async () => {
    const chunks = Array.from({ length: 400 }, (_, i) => randomBytes(1 + ((i * 7919) % 70_000)));
    const writer = new FileWriter(path.join(dir, 'a'), 128 * 1024);
    await pipeline(Readable.from(chunks), writer);
    expect((await readFile(path.join(dir, 'a'))).equals(Buffer.concat(chunks))).to.equal(true);
    expect(writer.created).to.equal(true);
  });

  it('holds the sender back once its write-ahead is used up, and resumes it', async () => {
    const file = path.join(dir, 'b');
    const writer = new FileWriter(file, 64 * 1024);
    const chunk = randomBytes(16 * 1024);
    // The first write is taken once the file is open.
    await new Promise((resolve) => writer.write(chunk, resolve));
    let accepted = 1;
    while (accepted < 100 && writer.write(chunk)) accepted += 1;
    // Four chunks fill the write-ahead, the stream's own buffer takes four more, then it says wait.
    expect(accepted).to.be.within(4, 9);
    await once(writer, 'drain');
    writer.end(chunk);
    await once(writer, 'finish');
    expect((await readFile(file)).length).to.equal((accepted + 2) * chunk.length);
  });

  it('counts what it takes, and fails with 413 at the chunk that passes its ceiling, keeping no more', async () => {
    const file = path.join(dir, 'limit');
    const chunks = Array.from({ length: 10 }, () => randomBytes(1000));
    const exact = new FileWriter(path.join(dir, 'exact'), 64 * 1024, 10_000);
    await pipeline(Readable.from(chunks), exact);
    expect(exact.bytes).to.equal(10_000);
    const writer = new FileWriter(file, 64 * 1024, 9_999);
    const failure = await pipeline(Readable.from(chunks), writer).catch((err: unknown) => err);
    expect(isAppError(failure) && failure.status).to.equal(413);
    if (!writer.closed) await new Promise((resolve) => writer.once('close', resolve));
    expect((await readFile(file)).length).to.be.at.most(9_000);
  });

  it('never overwrites an existing file, and says it created nothing', async () => {
    const file = path.join(dir, 'c');
    await writeFile(file, 'kept');
    const writer = new FileWriter(file, 1024);
    const failure = await pipeline(Readable.from([Buffer.from('new')]), writer).catch((err: NodeJS.ErrnoException) => err);
    expect((failure as NodeJS.ErrnoException).code).to.equal('EEXIST');
    expect(writer.created).to.equal(false);
    expect(await readFile(file, 'utf8')).to.equal('kept');
  });

  it('fails with its source and is closed by the time the pipeline rejects, so the file can be removed', async () => {
    const writer = new FileWriter(path.join(dir, 'd'), 64 * 1024);
    const failure = await pipeline(failingStream(512 * 1024), writer).catch((err: Error) => err);
    expect((failure as Error).message).to.equal('source failed midway');
    if (!writer.closed) await new Promise((resolve) => writer.once('close', resolve));
    expect(writer.created).to.equal(true);
    expect(writer.destroyed).to.equal(true);
  });
});
