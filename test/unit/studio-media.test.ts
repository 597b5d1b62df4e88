import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scoreContent } from '../../src/studio/index.ts';
import type { ContentScoreResult, Format } from '../../src/studio/index.ts';
import { formatDuration } from '../../src/studio/video-analysis.ts';
import { listen, makeJpeg, makeMp4, makePng } from '../helpers/media.ts';
import type { TestServer } from '../helpers/media.ts';
import type { Platform } from '../../src/core/catalog.ts';

const GIF = Buffer.concat([
  Buffer.from('GIF89a'),
  Buffer.from([0x90, 0x01, 0x90, 0x01, 0, 0, 0]),
  Buffer.from([0x3b]),
]);

const files: Record<string, { body: Buffer; type?: string; length?: number; chunked?: boolean }> = {
  '/square.png': { body: makePng(1080, 1080) },
  '/portrait.jpg': { body: makeJpeg(1080, 1350) },
  '/wide.jpg': { body: makeJpeg(1920, 1080) },
  '/small-wide.jpg': { body: makeJpeg(480, 270), type: 'text/plain' },
  '/tall.png': { body: makePng(1080, 1920) },
  '/anim.gif': { body: GIF },
  '/reel.mp4': { body: makeMp4({ width: 1080, height: 1920, durationSeconds: 24.5, audio: true }) },
  '/long-wide.mp4': {
    body: makeMp4({ width: 1920, height: 1080, durationSeconds: 700, sampleEntry: 'mp4v' }),
  },
  '/moov-at-end.mp4': {
    body: makeMp4({
      width: 720,
      height: 1280,
      durationSeconds: 45,
      audio: true,
      mdatBeforeMoov: 2 * 1024 * 1024,
    }),
    chunked: true,
  },
  '/eleven-minutes.mp4': { body: makeMp4({ width: 1080, height: 1920, durationSeconds: 660, audio: true }) },
  '/truncated.mp4': { body: makeMp4({ width: 1080, height: 1920, durationSeconds: 10 }).subarray(0, 60) },
};

let server: TestServer;
beforeAll(async () => {
  server = await listen((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) return void res.writeHead(404).end();
    const headers: Record<string, string> = { 'content-type': file.type ?? 'application/octet-stream' };
    if (!file.chunked) headers['content-length'] = String(file.body.length);
    res.writeHead(200, headers);
    // Several writes so the client sees the body in pieces, as on a real network.
    for (let i = 0; i < file.body.length; i += 64 * 1024) res.write(file.body.subarray(i, i + 64 * 1024));
    res.end();
  });
});
afterAll(() => server.close());

const score = (content_type: 'image' | 'video', path: string, platform: Platform, format: Format = 'post') =>
  scoreContent(
    { content_type, content: `${server.origin}${path}`, platform, format },
    { allowLoopback: true, timeouts: { connectMs: 1000, headersMs: 1000, totalMs: 5000 } },
  );

const find = (r: ContentScoreResult, text: string) => r.feedback.find((f) => f.suggestion.includes(text));

describe('image scoring', () => {
  it('gives full marks to a 1080 px 4:5 or 1:1 Instagram post', async () => {
    for (const path of ['/portrait.jpg', '/square.png']) {
      const r = await score('image', path, 'instagram');
      expect(r.score).toBe(100);
      expect(r.feedback).toEqual([]);
      expect(r.pillar_predictions).toEqual({
        presence: '+5.0',
        reach: '+5.0',
        impact: '+5.0',
        sentiment: '+0.0',
        momentum: '+5.0',
      });
    }
  });

  it('asks for 9:16 on a story and measures the image it got', async () => {
    const r = await score('image', '/wide.jpg', 'instagram', 'story');
    const crop = find(r, 'Crop to 9:16 (1080×1920): the image is 1920×1080 (16:9)');
    expect(crop?.expected_lift).toBe('+32');
    expect(r.feedback[0]).toBe(crop);
    expect(r.score).toBe(68);
    expect((await score('image', '/tall.png', 'instagram', 'story')).score).toBe(100);
  });

  it('wants 16:9 for a YouTube post and flags low resolution', async () => {
    const r = await score('image', '/small-wide.jpg', 'youtube');
    expect(find(r, 'aspect')).toBeUndefined();
    expect(
      find(r, 'Export at 1080 px or more on the short side: the image is 480×270, 270 px')?.suggestion,
    ).toContain('below 360 px it is upscaled');
    const square = await score('image', '/square.png', 'youtube');
    expect(find(square, 'Crop to 16:9 (1920×1080): the image is 1080×1080 (1:1)')).toBeDefined();
  });

  it('knows which platforms take GIFs and that a reel is a video format', async () => {
    const gifOnInstagram = await score('image', '/anim.gif', 'instagram');
    expect(find(gifOnInstagram, 'Convert the image to JPEG or PNG: it is a GIF')).toBeDefined();
    // Instagram refuses the upload: a blocker, so the score is at most 40.
    expect(gifOnInstagram.blockers).toEqual(['file_type']);
    expect(gifOnInstagram.score).toBeLessThanOrEqual(40);
    expect(find(await score('image', '/anim.gif', 'twitter'), 'Convert the image')).toBeUndefined();
    const reel = await score('image', '/tall.png', 'instagram', 'reel');
    expect(
      find(reel, 'Use a video for a reel, or publish this still as a post or a story')?.expected_lift,
    ).toBe('+7');
  });

  it('refuses a video where an image was promised', async () => {
    await expect(score('image', '/reel.mp4', 'instagram')).rejects.toMatchObject({
      kind: 'media_unsupported',
      detail: 'expected an image but the URL serves an MP4 video',
    });
  });
});

describe('video scoring', () => {
  it('reads duration, size, codec and audio from the MP4 and scores a good reel 100', async () => {
    const r = await score('video', '/reel.mp4', 'instagram', 'reel');
    expect(r).toMatchObject({ score: 100, feedback: [], platform: 'instagram', format: 'reel' });
  });

  it('flags a video over the platform limit, a foreign codec and missing sound', async () => {
    const r = await score('video', '/long-wide.mp4', 'twitter');
    expect(r.feedback[0]).toEqual({
      priority: 1,
      suggestion: 'Trim the video to 2 min 20 s or less, the twitter post limit: it runs 11 min 40 s',
      // A blocker: the score is capped at 40. Trimmed to the limit, duration quality is 0.4, so the
      // uncapped score is 100 - 35 x 0.6 - codec 10 x 0.7 - audio 10 x 0.3 = 69.
      expected_lift: '+29',
    });
    expect(r).toMatchObject({ score: 40, blockers: ['duration'] });
    // The codec and audio advice gain nothing while the cap holds: they wait for the trim.
    expect(r.feedback).toHaveLength(1);
    expect(r.pillar_predictions.momentum.startsWith('-')).toBe(true);
  });

  it('applies the per-platform duration tables', async () => {
    expect(
      find(await score('video', '/eleven-minutes.mp4', 'tiktok'), 'Trim the video to 10 min or less'),
    ).toBeDefined();
    expect(
      find(
        await score('video', '/eleven-minutes.mp4', 'youtube', 'short'),
        'Trim the video to 3 min or less',
      ),
    ).toBeDefined();
    expect(
      find(await score('video', '/reel.mp4', 'youtube', 'post'), 'Extend the video to at least 7 min'),
    ).toBeDefined();
    expect(
      find(await score('video', '/reel.mp4', 'instagram', 'story'), 'Trim the video towards 15 s'),
    ).toBeDefined();
  });

  it('streams through the media data to a moov box at the end', async () => {
    const r = await score('video', '/moov-at-end.mp4', 'tiktok');
    expect(find(r, 'Export at 1080 px or more on the short side: the video is 720×1280')).toBeDefined();
    expect(find(r, 'Trim')).toBeUndefined();
  });

  it('refuses a truncated MP4 and an image where a video was promised', async () => {
    await expect(score('video', '/truncated.mp4', 'tiktok')).rejects.toMatchObject({
      kind: 'media_unsupported',
    });
    await expect(score('video', '/square.png', 'tiktok')).rejects.toMatchObject({
      kind: 'media_unsupported',
      detail: 'expected an MP4 video but the URL serves a png image',
    });
  });

  it('maps refused and unreachable URLs to typed errors', async () => {
    await expect(
      scoreContent({
        content_type: 'video',
        content: `${server.origin}/reel.mp4`,
        platform: 'tiktok',
        format: 'post',
      }),
    ).rejects.toMatchObject({ kind: 'media_refused' });
    await expect(score('video', '/missing.mp4', 'tiktok')).rejects.toMatchObject({
      kind: 'media_unreachable',
    });
    await expect(
      scoreContent(
        { content_type: 'image', content: `${server.origin}/square.png`, platform: 'instagram' },
        { allowLoopback: true, maxMediaBytes: 1000 },
      ),
    ).rejects.toMatchObject({ kind: 'content_too_large' });
  });

  it('is deterministic for the same bytes', async () => {
    expect(await score('video', '/long-wide.mp4', 'facebook')).toEqual(
      await score('video', '/long-wide.mp4', 'facebook'),
    );
  });
});

describe('durations in suggestions', () => {
  it('reads naturally', () => {
    expect(formatDuration(24.5)).toBe('24.5 s');
    expect(formatDuration(140)).toBe('2 min 20 s');
    expect(formatDuration(600)).toBe('10 min');
    expect(formatDuration(43200)).toBe('12 h');
    expect(formatDuration(3900)).toBe('1 h 5 min');
  });
});
