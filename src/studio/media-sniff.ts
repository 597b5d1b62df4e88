/**
 * Media type from the first bytes (magic numbers). The server's Content-Type header is
 * ignored: it is whatever the URL's owner says, and a wrong one must not pick the parser.
 */
export type ImageType = 'png' | 'jpg' | 'gif' | 'webp';
export type SniffedType = ImageType | 'mp4';

/** Bytes needed before sniff() can decide. */
export const SNIFF_BYTES = 12;

const ascii = (bytes: Uint8Array, start: number, end: number) =>
  String.fromCharCode(...bytes.subarray(start, end));

export function sniff(head: Uint8Array): SniffedType | null {
  if (head.length < SNIFF_BYTES) return null;
  if ([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => head[i] === b)) return 'png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpg';
  const six = ascii(head, 0, 6);
  if (six === 'GIF87a' || six === 'GIF89a') return 'gif';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'webp';
  // ISO base media (MP4, MOV, M4V): the file starts with an 'ftyp' box.
  if (ascii(head, 4, 8) === 'ftyp') return 'mp4';
  return null;
}

/**
 * The class of unrecognised bytes for error messages: never the bytes themselves, which would
 * let a caller read the first bytes of any resource the service can fetch.
 */
export function describeUnknown(head: Uint8Array): string {
  const text = ascii(head, 0, Math.min(head.length, 64)).trimStart().toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'an HTML page';
  if (text.startsWith('<?xml') || text.startsWith('<svg')) return 'XML or SVG';
  if (text.startsWith('{') || text.startsWith('[')) return 'JSON or text';
  return head.length === 0 ? 'an empty body' : 'an unrecognised format';
}
