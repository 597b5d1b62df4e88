import { crc32, deflateSync } from 'node:zlib';

/**
 * Real, minimal media files built byte by byte: the studio's parsers are tested against valid files
 * rather than mocks, and the local sandbox serves them for trying studio media scoring.
 */

const u8 = (n: number) => Buffer.from([n & 0xff]);
const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const ascii = (s: string) => Buffer.from(s, 'latin1');

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([ascii(type), data]);
  return Buffer.concat([u32(data.length), body, u32(crc32(body))]);
}

/** A valid 8-bit greyscale PNG of the given size (mid grey). */
export function makePng(width: number, height: number): Buffer {
  const ihdr = Buffer.concat([u32(width), u32(height), u8(8), u8(0), u8(0), u8(0), u8(0)]);
  // Each scanline: filter type 0, then one byte per pixel.
  const row = Buffer.alloc(1 + width, 0x80);
  row[0] = 0;
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function jpegSegment(marker: number, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0xff, marker]), u16(data.length + 2), data]);
}

/**
 * A decodable baseline JPEG of a flat grey image. With one-code Huffman tables every 8x8
 * block is two bits: DC difference category 0 and end-of-block, so any size stays tiny.
 * `app1Bytes` inserts an EXIF-like APP1 segment first, pushing the size header further in.
 */
export function makeJpeg(width: number, height: number, options: { app1Bytes?: number } = {}): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const scan = Buffer.alloc(Math.ceil((blocks * 2) / 8), 0);
  const usedBits = (blocks * 2) % 8;
  // Pad the last byte with 1-bits as the standard requires.
  if (usedBits !== 0) scan[scan.length - 1] = 0xff >> usedBits;
  const huffman = (tableClass: number) =>
    jpegSegment(0xc4, Buffer.concat([u8(tableClass << 4), u8(1), Buffer.alloc(15), u8(0)]));
  const app1 = options.app1Bytes
    ? [jpegSegment(0xe1, Buffer.concat([ascii('Exif\0\0'), Buffer.alloc(options.app1Bytes - 6)]))]
    : [];
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    jpegSegment(0xe0, Buffer.concat([ascii('JFIF\0'), Buffer.from([1, 1, 0]), u16(1), u16(1), u8(0), u8(0)])),
    ...app1,
    jpegSegment(0xdb, Buffer.concat([u8(0), Buffer.alloc(64, 1)])),
    jpegSegment(0xc0, Buffer.concat([u8(8), u16(height), u16(width), u8(1), u8(1), u8(0x11), u8(0)])),
    huffman(0),
    huffman(1),
    jpegSegment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
    scan,
    Buffer.from([0xff, 0xd9]),
  ]);
}

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(8 + body.length), ascii(type), body]);
}

function fullBox(type: string, version: number, flags: number, ...payload: Buffer[]): Buffer {
  return box(type, u8(version), u8(flags >> 16), u16(flags & 0xffff), ...payload);
}

const UNITY_MATRIX = Buffer.concat([0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000].map(u32));
const EMPTY_SAMPLE_TABLES = [
  fullBox('stts', 0, 0, u32(0)),
  fullBox('stsc', 0, 0, u32(0)),
  fullBox('stsz', 0, 0, u32(0), u32(0)),
  fullBox('stco', 0, 0, u32(0)),
];

function dinf(): Buffer {
  return box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1)));
}

function trak(
  id: number,
  durationMs: number,
  width: number,
  height: number,
  handler: string,
  media: Buffer[],
) {
  const timescale = 1000;
  return box(
    'trak',
    fullBox(
      'tkhd',
      0,
      3,
      u32(0),
      u32(0),
      u32(id),
      u32(0),
      u32(durationMs),
      Buffer.alloc(8),
      u16(0),
      u16(0),
      u16(handler === 'soun' ? 0x0100 : 0),
      u16(0),
      UNITY_MATRIX,
      u32(width * 0x10000),
      u32(height * 0x10000),
    ),
    box(
      'mdia',
      fullBox('mdhd', 0, 0, u32(0), u32(0), u32(timescale), u32(durationMs), u16(0x55c4), u16(0)),
      fullBox('hdlr', 0, 0, u32(0), ascii(handler), Buffer.alloc(12), ascii(`${handler} handler\0`)),
      box('minf', ...media),
    ),
  );
}

function visualSampleEntry(type: string, width: number, height: number, ...children: Buffer[]): Buffer {
  return box(
    type,
    Buffer.alloc(6),
    u16(1),
    u16(0),
    u16(0),
    Buffer.alloc(12),
    u16(width),
    u16(height),
    u32(0x00480000),
    u32(0x00480000),
    u32(0),
    u16(1),
    Buffer.alloc(32),
    u16(0x18),
    u16(0xffff),
    ...children,
  );
}

export interface Mp4Options {
  width: number;
  height: number;
  durationSeconds: number;
  /** 'avc1' (H.264, with an avcC) or 'mp4v' (MPEG-4 Part 2, no decoder config). */
  sampleEntry?: 'avc1' | 'mp4v';
  audio?: boolean;
  /** Put a media data box of this many bytes before the moov, as un-optimised encoders do. */
  mdatBeforeMoov?: number;
}

/** A structurally valid MP4 (ftyp, moov with a video track and optional audio track). */
export function makeMp4(options: Mp4Options): Buffer {
  const { width, height } = options;
  const durationMs = Math.round(options.durationSeconds * 1000);
  const avcC = box(
    'avcC',
    Buffer.from([1, 0x64, 0x00, 0x1f, 0xff, 0xe1]),
    u16(4),
    Buffer.from([0x67, 0x64, 0x00, 0x1f]),
    u8(1),
    u16(4),
    Buffer.from([0x68, 0xee, 0x3c, 0x80]),
  );
  const entry =
    options.sampleEntry === 'mp4v'
      ? visualSampleEntry('mp4v', width, height)
      : visualSampleEntry('avc1', width, height, avcC);
  const video = trak(1, durationMs, width, height, 'vide', [
    fullBox('vmhd', 0, 1, u16(0), Buffer.alloc(6)),
    dinf(),
    box('stbl', fullBox('stsd', 0, 0, u32(1), entry), ...EMPTY_SAMPLE_TABLES),
  ]);
  const tracks = [video];
  if (options.audio) {
    const mp4a = box(
      'mp4a',
      Buffer.alloc(6),
      u16(1),
      Buffer.alloc(8),
      u16(2),
      u16(16),
      u16(0),
      u16(0),
      u32(44100 * 0x10000),
    );
    tracks.push(
      trak(2, durationMs, 0, 0, 'soun', [
        fullBox('smhd', 0, 0, u16(0), u16(0)),
        dinf(),
        box('stbl', fullBox('stsd', 0, 0, u32(1), mp4a), ...EMPTY_SAMPLE_TABLES),
      ]),
    );
  }
  const mvhd = fullBox(
    'mvhd',
    0,
    0,
    u32(0),
    u32(0),
    u32(1000),
    u32(durationMs),
    u32(0x10000),
    u16(0x0100),
    Buffer.alloc(10),
    UNITY_MATRIX,
    Buffer.alloc(24),
    u32(tracks.length + 1),
  );
  const ftyp = box('ftyp', ascii('isom'), u32(512), ascii('isomiso2avc1mp41'));
  const moov = box('moov', mvhd, ...tracks);
  const mdat =
    options.mdatBeforeMoov !== undefined ? [box('mdat', Buffer.alloc(options.mdatBeforeMoov))] : [];
  return Buffer.concat([ftyp, ...mdat, moov]);
}

/** ftyp followed by the header of an mdat box claiming `declared` bytes: the start of an endless MP4. */
export function mp4PrefixWithHugeMdat(declared: number): Buffer {
  return Buffer.concat([
    box('ftyp', ascii('isom'), u32(512), ascii('isomavc1')),
    u32(declared),
    ascii('mdat'),
  ]);
}
