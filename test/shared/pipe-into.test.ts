import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable, Writable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { pipeInto } from '../../shared/storage/pipe-into.js';
import { failingStream, hashSink, repeatedStream, sha256Of } from '../helpers/streams.js';

/** A destination that takes `okChunks` chunks, then fails the next write. */
function failingSink(okChunks: number): Writable {
  let taken = 0;
  return new Writable({
    write(_chunk, _enc, done) {
      taken += 1;
      done(taken > okChunks ? new Error('disk full') : null);
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('pipeInto (stream.pipeline for one source and one destination)', () => {
  it('delivers every byte and resolves once the destination has finished and closed', async () => {
    const chunk = randomBytes(64 * 1024);
    const sink = hashSink();
    await pipeInto(repeatedStream(chunk, 50), sink);
    expect(sink.bytes).to.equal(50 * chunk.length);
    expect(sink.digest()).to.equal(sha256Of(Buffer.concat(Array.from({ length: 50 }, () => chunk))));
    expect(sink.closed).to.equal(true);
  });

  it('rejects with the source’s error and destroys the destination', async () => {
    const sink = hashSink();
    const err = await rejection(pipeInto(failingStream(256 * 1024), sink));
    expect(err.message).to.equal('source failed midway');
    expect(sink.destroyed).to.equal(true);
  });

  it('rejects when the source closes before its end', async () => {
    const source = new PassThrough();
    const sink = hashSink();
    const piped = pipeInto(source, sink);
    source.write(randomBytes(1000));
    await tick();
    source.destroy();
    const err = (await rejection(piped)) as NodeJS.ErrnoException;
    expect(err.code).to.equal('ERR_STREAM_PREMATURE_CLOSE');
    expect(sink.destroyed).to.equal(true);
  });

  it('rejects with the destination’s error and destroys the source', async () => {
    const source = repeatedStream(randomBytes(1024), 100);
    const err = await rejection(pipeInto(source, failingSink(3)));
    expect(err.message).to.equal('disk full');
    expect(source.destroyed).to.equal(true);
  });

  it('stops on the signal with its reason, destroying both, whether it fires before or during', async () => {
    const reason = new Error('job cancelled');
    const early = new AbortController();
    early.abort(reason);
    const idle = new PassThrough();
    const first = hashSink();
    expect(await rejection(pipeInto(idle, first, early.signal))).to.equal(reason);
    expect(idle.destroyed && first.destroyed).to.equal(true);
    expect(first.bytes).to.equal(0);

    const late = new AbortController();
    const source = new PassThrough();
    const second = hashSink();
    const piped = pipeInto(source, second, late.signal);
    source.write(randomBytes(1000));
    await tick();
    late.abort(reason);
    expect(await rejection(piped)).to.equal(reason);
    expect(source.destroyed && second.destroyed).to.equal(true);
  });

  it('leaves no listener behind on streams that finished', async () => {
    const source = Readable.from([randomBytes(10)]);
    const sink = hashSink();
    const before = sink.listenerCount('error');
    await pipeInto(source, sink);
    expect(sink.listenerCount('error')).to.equal(before);
    expect(source.listenerCount('error')).to.equal(0);
  });
});
