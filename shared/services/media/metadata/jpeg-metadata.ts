import { SegmentFilter, type Step, unreadable } from './segment-filter.js';

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const COM = 0xfe;
const APP0 = 0xe0;
const APP1 = 0xe1;
const APP15 = 0xef;
const ORIENTATION_TAG = 0x0112;

/** The only application segments decoding needs: JFIF, the ICC profile, Adobe's colour transform. */
const KEPT_APPS = new Map([
  [APP0, Buffer.from('JFIF\0', 'latin1')],
  [0xe2, Buffer.from('ICC_PROFILE\0', 'latin1')],
  [0xee, Buffer.from('Adobe', 'latin1')],
]);
const EXIF_ID = Buffer.from('Exif\0\0', 'latin1');
const LONGEST_ID = 12;

/**
 * Removes a JPEG's metadata, losslessly: every APPn segment but JFIF (APP0), ICC_PROFILE (APP2) and
 * Adobe (APP14) — so EXIF with its GPS, serial numbers and thumbnail, XMP and extended XMP, IPTC and
 * Photoshop (APP13), MPF, JFXX thumbnails — and comments (COM), also between progressive scans. The
 * EXIF orientation survives as a new APP1 holding only IFD0 Orientation, so portraits stay upright.
 * Entropy-coded data is copied byte for byte; anything after EOI (MPF's extra images, vendors'
 * trailers, each with its own metadata) is left out. A file that is not a JPEG, or whose markers
 * cannot be followed, fails with a 400.
 */
export class JpegMetadataStripper extends SegmentFilter {
  #state: 'start' | 'markers' | 'scan' | 'end' = 'start';
  #exifSeen = false;

  protected override decide(head: Buffer): Step {
    switch (this.#state) {
      case 'start':
        if (head.length < 2) return { need: 2 };
        if (head[0] !== 0xff || head[1] !== SOI) throw unreadable('JPEG', 'it does not start like a JPEG');
        this.#state = 'markers';
        return { copy: 2 };
      case 'scan':
        return this.#scan(head);
      case 'markers':
        return this.#segment(head);
      case 'end':
        return { drop: Number.POSITIVE_INFINITY };
    }
  }

  /**
   * Entropy-coded data runs to the next 0xFF that is neither byte stuffing (0xFF00) nor a restart
   * marker. All of it at hand goes in one step: a photo's scan holds a stuffed 0xFF every ~256 bytes.
   */
  #scan(head: Buffer): Step {
    let ff = head.indexOf(0xff);
    while (ff >= 0 && ff + 1 < head.length && (head[ff + 1] === 0x00 || isRestart(head[ff + 1]!))) ff = head.indexOf(0xff, ff + 2);
    if (ff !== 0) return { copy: ff < 0 ? head.length : ff };
    if (head.length < 2) return { need: 2 };
    this.#state = 'markers';
    return this.#segment(head);
  }

  #segment(head: Buffer): Step {
    if (head.length < 2) return { need: 2 };
    if (head[0] !== 0xff) throw unreadable('JPEG', 'a segment does not start with a marker');
    const marker = head[1]!;
    if (marker === 0xff) return { copy: 1 }; // a fill byte before the marker
    if (marker === EOI) {
      this.#state = 'end';
      return { copy: 2 };
    }
    if (marker === 0x00 || marker === SOI) throw unreadable('JPEG', 'a marker is out of place');
    if (isRestart(marker) || marker === 0x01) return { copy: 2 }; // markers without a length
    if (head.length < 4) return { need: 4 };
    const size = 2 + head.readUInt16BE(2);
    if (size < 4) throw unreadable('JPEG', 'a segment has an impossible length');
    if (marker === SOS) {
      this.#state = 'scan';
      return { copy: size };
    }
    if (marker === COM) return { drop: size };
    if (marker < APP0 || marker > APP15) return { copy: size };
    const idEnd = Math.min(size, 4 + LONGEST_ID);
    if (head.length < idEnd) return { need: idEnd };
    const id = head.subarray(4, idEnd);
    if (marker === APP1 && startsWith(id, EXIF_ID) && !this.#exifSeen) {
      // The first EXIF segment is read whole (at most 64 KiB) for its orientation, then replaced.
      if (head.length < size) return { need: size };
      this.#exifSeen = true;
      const orientation = exifOrientation(head.subarray(4 + EXIF_ID.length, size));
      return orientation === 1 ? { drop: size } : { drop: size, insert: orientationSegment(orientation) };
    }
    const kept = KEPT_APPS.get(marker);
    return kept && startsWith(id, kept) ? { copy: size } : { drop: size };
  }
}

function isRestart(marker: number): boolean {
  return marker >= 0xd0 && marker <= 0xd7;
}

function startsWith(bytes: Buffer, prefix: Buffer): boolean {
  return bytes.length >= prefix.length && bytes.subarray(0, prefix.length).equals(prefix);
}

/** IFD0's Orientation (1 to 8) of a TIFF structure; 1 (as stored) when there is none or it cannot be read. */
function exifOrientation(tiff: Buffer): number {
  if (tiff.length < 8) return 1;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return 1;
  const little = order === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const ifd = little ? tiff.readUInt32LE(4) : tiff.readUInt32BE(4);
  if (u16(2) !== 42 || ifd + 2 > tiff.length) return 1;
  const count = u16(ifd);
  for (let entry = ifd + 2; entry + 12 <= tiff.length && entry < ifd + 2 + count * 12; entry += 12) {
    if (u16(entry) !== ORIENTATION_TAG) continue;
    const value = u16(entry + 8);
    return u16(entry + 2) === 3 && value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}

/** An APP1 Exif segment whose IFD0 holds nothing but Orientation (big-endian TIFF, one SHORT entry). */
function orientationSegment(orientation: number): Buffer {
  const tiff = Buffer.alloc(26);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4); // IFD0 follows the header
  tiff.writeUInt16BE(1, 8); // one entry
  tiff.writeUInt16BE(ORIENTATION_TAG, 10);
  tiff.writeUInt16BE(3, 12); // SHORT
  tiff.writeUInt32BE(1, 14); // one value, held in the entry itself
  tiff.writeUInt16BE(orientation, 18);
  // bytes 22-25 stay 0: no next IFD
  const header = Buffer.from([0xff, APP1, 0, 0]);
  header.writeUInt16BE(2 + EXIF_ID.length + tiff.length, 2);
  return Buffer.concat([header, EXIF_ID, tiff]);
}
