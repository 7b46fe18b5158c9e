'use strict';

/*
 * busboy (under multer) finds multipart boundaries with streamsearch, a Boyer–Moore–Horspool search
 * written in JavaScript. On a 512 MiB upload that search was ~200 ms of the web thread, the largest
 * single cost between the socket and the disk; Buffer.indexOf finds the same needle natively at
 * several GB/s. package.json's `overrides` installs this module as busboy's `streamsearch`, so it keeps
 * that module's interface exactly:
 *
 *   new Search(needle, cb); search.push(chunk, pos) -> position reached; search.destroy(); reset();
 *   maxMatches, matches
 *   cb(isMatch, data, start, end, isDataSafe): data[start, end) is haystack that precedes the next
 *   match (isMatch) or cannot belong to one; `data` is undefined when there is none. When isDataSafe
 *   is false the consumer must copy the bytes before it returns.
 *
 * Bytes at the end of a chunk that could be the start of the needle are held back until the next
 * chunk says whether they are. Held bytes are always a prefix of the needle, so only their count is
 * kept, and when they turn out to be haystack they are handed on from the needle itself.
 */
class BoundarySearch {
  constructor(needle, cb) {
    if (typeof cb !== 'function') throw new Error('Missing match callback');
    if (typeof needle === 'string') needle = Buffer.from(needle);
    else if (!Buffer.isBuffer(needle)) throw new Error(`Expected Buffer for needle, got ${typeof needle}`);
    if (needle.length === 0) throw new Error('The needle must not be empty');
    this.maxMatches = Infinity;
    this.matches = 0;
    this._cb = cb;
    this._needle = needle;
    this._held = 0;
  }

  reset() {
    this.matches = 0;
    this._held = 0;
  }

  push(chunk, pos) {
    if (!Buffer.isBuffer(chunk)) chunk = Buffer.from(chunk, 'latin1');
    const len = chunk.length;
    let at = pos || 0;
    while (at < len && this.matches < this.maxMatches) at = this._feed(chunk, at);
    return at;
  }

  destroy() {
    if (this._held > 0) this._cb(false, this._needle, 0, this._held, false);
    this.reset();
  }

  /** Consumes data from pos up to and including the next match, or to its end; returns where it stopped. */
  _feed(data, pos) {
    if (this._held > 0) {
      const stopped = this._continueHeld(data, pos);
      if (stopped !== -1) return stopped;
    }
    const needle = this._needle;
    const len = data.length;
    const at = data.indexOf(needle, pos);
    if (at !== -1) {
      ++this.matches;
      if (at > pos) this._cb(true, data, pos, at, true);
      else this._cb(true, undefined, 0, 0, true);
      return at + needle.length;
    }
    const tail = this._heldTailStart(data, pos);
    if (tail > pos) this._cb(false, data, pos, tail, true);
    this._held = len - tail;
    return len;
  }

  /**
   * Tries every place in the held bytes where a match could start, earliest first, against the new
   * data. Returns where it stopped in data, or -1 when none can be a match (the held bytes have then
   * been handed on as haystack).
   */
  _continueHeld(data, pos) {
    const needle = this._needle;
    const needleLen = needle.length;
    const held = this._held;
    const available = data.length - pos;
    for (let start = 0; start < held; ++start) {
      // A later start is possible only where the held bytes from there on are a prefix of the needle too.
      const kept = held - start;
      if (start > 0 && needle.compare(needle, 0, kept, start, held) !== 0) continue;
      const missing = needleLen - kept;
      if (available >= missing) {
        if (data.compare(needle, kept, needleLen, pos, pos + missing) !== 0) continue;
        this._held = 0;
        ++this.matches;
        if (start > 0) this._cb(true, needle, 0, start, false);
        else this._cb(true, undefined, 0, 0, true);
        return pos + missing;
      }
      // All of data still continues the needle: hold it too, handing on what precedes `start`.
      if (data.compare(needle, kept, kept + available, pos, data.length) !== 0) continue;
      if (start > 0) this._cb(false, needle, 0, start, false);
      this._held = kept + available;
      return data.length;
    }
    this._held = 0;
    this._cb(false, needle, 0, held, false);
    return -1;
  }

  /** Where the longest end of data[pos, len) that is a prefix of the needle starts (len when none). */
  _heldTailStart(data, pos) {
    const needle = this._needle;
    const len = data.length;
    const first = needle[0];
    for (let tail = Math.max(pos, len - needle.length + 1); tail < len; ++tail) {
      if (data[tail] === first && data.compare(needle, 0, len - tail, tail, len) === 0) return tail;
    }
    return len;
  }
}

module.exports = BoundarySearch;
