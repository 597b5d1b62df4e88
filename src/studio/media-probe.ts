import { imageSize } from 'image-size';
import { createFile, MP4BoxBuffer } from 'mp4box';
import type { ISOFile, Movie } from 'mp4box';
import { StudioError } from './errors.ts';
import { describeUnknown, sniff, SNIFF_BYTES } from './media-sniff.ts';
import type { ImageType } from './media-sniff.ts';
import type { BodySink } from './safe-fetch.ts';

/**
 * Body sinks that read only what analysis needs: an image's header (dimensions), an MP4's
 * 'moov' box (duration, tracks). Each sniffs the magic number first and refuses other media.
 */

function unsupported(detail: string): StudioError {
  return new StudioError('media_unsupported', detail);
}

/**
 * What a caller is told when a parser fails: the class of problem only. A parser's own message
 * quotes what it read (mp4box names the four bytes of a box type it refused) and an exception
 * names internals ("RangeError: Invalid typed array length"), so neither reaches `detail`.
 */
export const MP4_UNPARSABLE = 'the MP4 could not be parsed (its boxes are malformed)';

/** Grows by doubling so many small chunks do not cost a copy each. */
class ByteBuffer {
  bytes = new Uint8Array(64 * 1024);
  length = 0;

  append(chunk: Uint8Array): void {
    if (this.length + chunk.length > this.bytes.length) {
      let size = this.bytes.length * 2;
      while (size < this.length + chunk.length) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.bytes.subarray(0, this.length));
      this.bytes = next;
    }
    this.bytes.set(chunk, this.length);
    this.length += chunk.length;
  }

  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

export interface ImageFacts {
  type: ImageType;
  /** Displayed size: EXIF orientations that rotate by 90 degrees are applied. */
  width: number;
  height: number;
}

/**
 * Dimensions live in the first bytes of PNG, GIF and WebP; JPEG keeps them in the SOF
 * segment after any EXIF/ICC segments, rarely past the first megabyte. The window bounds
 * how much is buffered when a stream never reveals them.
 */
export const IMAGE_HEADER_WINDOW = 8 * 1024 * 1024;

export class ImageProbe implements BodySink {
  private readonly buffer = new ByteBuffer();
  private type: ImageType | null = null;
  private facts: ImageFacts | null = null;
  private nextAttempt = SNIFF_BYTES;

  write(chunk: Buffer): boolean {
    this.buffer.append(chunk);
    if (this.type === null) {
      if (this.buffer.length < SNIFF_BYTES) return false;
      const sniffed = sniff(this.buffer.view());
      if (sniffed === 'mp4') throw unsupported('expected an image but the URL serves an MP4 video');
      if (sniffed === null) {
        throw unsupported(
          `expected a PNG, JPEG, GIF or WebP image but got ${describeUnknown(this.buffer.view())}`,
        );
      }
      this.type = sniffed;
    }
    // image-size copies its input, so parse again only when the buffer has doubled.
    if (this.buffer.length >= this.nextAttempt) {
      this.nextAttempt = this.buffer.length * 2;
      this.facts = this.parse();
    }
    if (this.facts) return true;
    if (this.buffer.length > IMAGE_HEADER_WINDOW) {
      throw unsupported(`no ${this.type} dimensions in the first ${IMAGE_HEADER_WINDOW / 1024 / 1024} MB`);
    }
    return false;
  }

  private parse(): ImageFacts | null {
    try {
      const size = imageSize(this.buffer.view());
      const { width, height } = size;
      // A header cut mid-way can yield NaN or 0; wait for more bytes instead.
      if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) return null;
      const rotated = size.orientation !== undefined && size.orientation >= 5;
      return {
        type: this.type as ImageType,
        width: rotated ? height : width,
        height: rotated ? width : height,
      };
    } catch {
      return null;
    }
  }

  /** Image headers are read in order: the next byte after what came so far. */
  nextOffset(): number | null {
    return this.facts ? null : this.buffer.length;
  }

  /** The facts once the body ended or the probe said it was done. */
  result(): ImageFacts {
    if (!this.facts && this.type !== null) this.facts = this.parse();
    if (this.facts) return this.facts;
    if (this.type === null) {
      throw unsupported(
        `expected an image but got ${this.buffer.length === 0 ? 'an empty body' : describeUnknown(this.buffer.view())}`,
      );
    }
    throw unsupported(`the ${this.type} file is truncated or corrupt: no dimensions found`);
  }
}

export interface VideoFacts {
  durationSeconds: number;
  width: number;
  height: number;
  /** RFC 6381 codec string of the first video track, e.g. 'avc1.64001f'. */
  codec: string;
  hasAudio: boolean;
}

export class Mp4Probe implements BodySink {
  private readonly file: ISOFile = createFile();
  private readonly head = new ByteBuffer();
  private sniffed = false;
  private offset = 0;
  /** Where mp4box wants its next bytes: past an 'mdat' it does not need, when the moov follows it. */
  private next = 0;
  private movie: Movie | null = null;
  private failed = false;

  constructor() {
    this.file.onReady = (info: Movie) => {
      this.movie = info;
    };
    // mp4box's message quotes bytes of the file: only the fact of the failure is kept.
    this.file.onError = () => {
      this.failed = true;
    };
  }

  write(chunk: Buffer): boolean {
    let data: Uint8Array = chunk;
    if (!this.sniffed) {
      this.head.append(chunk);
      if (this.head.length < SNIFF_BYTES) return false;
      const type = sniff(this.head.view());
      if (type !== 'mp4') {
        throw unsupported(
          type === null
            ? `expected an MP4 video but got ${describeUnknown(this.head.view())}`
            : `expected an MP4 video but the URL serves a ${type} image`,
        );
      }
      this.sniffed = true;
      data = this.head.view();
    }
    // mp4box keeps the ArrayBuffer, and Node may pool small Buffers: hand it a private copy.
    const copy = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
    try {
      this.next = this.file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(copy, this.offset));
    } catch {
      throw unsupported(MP4_UNPARSABLE);
    }
    this.offset += data.byteLength;
    if (this.failed) throw unsupported(MP4_UNPARSABLE);
    return this.movie !== null;
  }

  nextOffset(): number | null {
    if (this.movie) return null;
    return this.sniffed ? Math.max(this.next, this.offset) : this.head.length;
  }

  seek(offset: number): void {
    this.offset = offset;
  }

  result(): VideoFacts {
    try {
      return this.facts();
    } catch (error) {
      throw error instanceof StudioError ? error : unsupported(MP4_UNPARSABLE);
    }
  }

  private facts(): VideoFacts {
    if (!this.movie) {
      if (this.sniffed) this.file.flush();
      if (this.failed) throw unsupported(MP4_UNPARSABLE);
      if (!this.movie) {
        throw unsupported(
          this.sniffed
            ? 'the MP4 has no complete moov box (truncated, or not an MP4)'
            : `expected an MP4 video but got ${this.head.length === 0 ? 'an empty body' : describeUnknown(this.head.view())}`,
        );
      }
    }
    const movie: Movie = this.movie;
    const track = movie.videoTracks[0];
    if (!track) throw unsupported('the MP4 has no video track');
    // Fragmented files may leave the movie duration at 0 and give the fragment duration instead.
    const fragment = movie.fragment_duration;
    const seconds =
      movie.duration > 0 && movie.timescale > 0
        ? movie.duration / movie.timescale
        : fragment && fragment.den > 0
          ? fragment.num / fragment.den
          : track.timescale > 0
            ? track.duration / track.timescale
            : 0;
    return {
      durationSeconds: seconds,
      width: track.video?.width ?? track.track_width,
      height: track.video?.height ?? track.track_height,
      codec: track.codec,
      hasAudio: movie.audioTracks.length > 0,
    };
  }
}
