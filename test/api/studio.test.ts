import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftArbitrary, follow, placementArbitrary, render } from '../helpers/studio-drafts.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { listen, makeMp4, makePng, type TestServer } from '../helpers/media.ts';

let t: TestService;
let key: string;
let proKey: string;
let media: TestServer;

beforeAll(async () => {
  // Loopback is allowed only by this explicit test setting, so the local media server is reachable.
  t = await startTestService({ allowLoopbackFetch: true });
  ({ key } = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' }));
  ({ key: proKey } = await workspaceWithKey(t.db, { plan: 'pro' }));
  const png = makePng(1080, 1920);
  const mp4 = makeMp4({ width: 1080, height: 1920, durationSeconds: 30, audio: true });
  media = await listen((req, res) => {
    if (req.url === '/story.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    if (req.url === '/clip.mp4') return res.writeHead(200, { 'content-type': 'video/mp4' }).end(mp4);
    if (req.url === '/to-metadata')
      return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    if (req.url === '/private.bin')
      return res
        .writeHead(200, { 'content-type': 'image/png' })
        .end(Buffer.from('SECRET-TOKEN=hunter2hunter2'));
    if (req.url === '/forbidden.png') return res.writeHead(403).end('internal only');
    if (req.url === '/huge.png')
      return res
        .writeHead(200, { 'content-type': 'image/png', 'content-length': String(200 * 1024 * 1024) })
        .end();
    res.writeHead(404).end();
  });
});
afterAll(async () => {
  await media?.close();
  await t?.close();
});

const score = (body: object, k = key) =>
  t.request({ method: 'POST', url: '/v1/studio/score', key: k, payload: body });

describe('POST /v1/studio/score', () => {
  it('scores text with pillar predictions and feedback ranked by lift, deterministically', async () => {
    const body = {
      content_type: 'text',
      content: 'New drop is here! Which colour is your favourite? Tap the link in bio #summer #style',
      platform: 'instagram',
    };
    const first = await score(body);
    expect(first.statusCode).toBe(200);
    const result = first.json();
    expect(result.platform).toBe('instagram');
    expect(result.format).toBe('post');
    expect(Number.isInteger(result.score)).toBe(true);
    expect(Object.keys(result.pillar_predictions).sort()).toEqual([
      'impact',
      'momentum',
      'presence',
      'reach',
      'sentiment',
    ]);
    for (const v of Object.values(result.pillar_predictions)) expect(v).toMatch(/^[+-]\d+\.\d$/);
    const lifts = result.feedback.map((f: { expected_lift: string }) => Number(f.expected_lift));
    expect(lifts).toEqual([...lifts].sort((a, b) => b - a));
    result.feedback.forEach((f: { priority: number }, i: number) => expect(f.priority).toBe(i + 1));
    expect((await score(body)).json()).toEqual(result);
  });

  it('answers the spec errors', async () => {
    expectProblem(
      await score({ content_type: 'audio', content: 'x', platform: 'instagram' }),
      400,
      'Invalid Content Type',
    );
    expectProblem(
      await score({ content_type: 'text', content: 'x', platform: 'myspace' }),
      422,
      'Invalid Platform',
    );
    expectProblem(
      await score({ content_type: 'text', content: 'a'.repeat(10_001), platform: 'twitter' }),
      413,
      'Content Too Large',
    );
    expectProblem(
      await score({ content_type: 'text', content: 'x', platform: 'instagram', format: 'thread' }),
      400,
      'Invalid Format',
    );
    expectProblem(
      await score({ content_type: 'text', content: 'x', platform: 'instagram', format: 'carousel' }),
      400,
      'Invalid Format',
    );
    expectProblem(await score({ content: 'x', platform: 'instagram' }), 400, 'Invalid Parameter');
    expectProblem(
      await score({ content_type: 'text', content: 'x', platform: 'instagram' }, proKey),
      403,
      'Plan Required',
    );
    expectProblem(
      await t.request({ method: 'POST', url: '/v1/studio/score', payload: {} }),
      401,
      'Unauthorized',
    );
  });

  it('fetches and measures images and videos from their URL', async () => {
    const story = await score({
      content_type: 'image',
      content: `${media.origin}/story.png`,
      platform: 'instagram',
      format: 'story',
    });
    expect(story.statusCode).toBe(200);
    const square = await score({
      content_type: 'image',
      content: `${media.origin}/story.png`,
      platform: 'youtube',
      format: 'post',
    });
    expect(square.statusCode).toBe(200);
    // A 9:16 image is right for a story and wrong for a 16:9 youtube post.
    expect(story.json().score).toBeGreaterThan(square.json().score);
    const video = await score({
      content_type: 'video',
      content: `${media.origin}/clip.mp4`,
      platform: 'tiktok',
    });
    expect(video.statusCode).toBe(200);
  });

  it('refuses private addresses, oversize media and unreachable URLs with clear errors', async () => {
    expectProblem(
      await score({ content_type: 'image', content: `${media.origin}/to-metadata`, platform: 'instagram' }),
      422,
      'Media URL Refused',
    );
    expectProblem(
      await score({ content_type: 'image', content: `${media.origin}/huge.png`, platform: 'instagram' }),
      413,
      'Content Too Large',
    );
    expectProblem(
      await score({ content_type: 'image', content: `${media.origin}/missing.png`, platform: 'instagram' }),
      422,
      'Media Unreachable',
    );
  });

  it('says what class of problem a media URL had, never what was fetched', async () => {
    const bytes = expectProblem(
      await score({ content_type: 'image', content: `${media.origin}/private.bin`, platform: 'instagram' }),
      422,
      'Unsupported Media',
    );
    expect(bytes.detail).toBe('expected a PNG, JPEG, GIF or WebP image but got an unrecognised format');
    const hex = Buffer.from('SECRET-T').toString('hex');
    expect(JSON.stringify(bytes)).not.toContain(hex);
    const status = expectProblem(
      await score({ content_type: 'image', content: `${media.origin}/forbidden.png`, platform: 'instagram' }),
      422,
      'Media Unreachable',
    );
    expect(status.detail).toBe('the media server did not return the media (an error status)');
    expect(JSON.stringify(status)).not.toContain('403');
  });
});

describe('POST /v1/studio/score as a format checklist', () => {
  it('says a flat grey image passes the format checks, not that it is good content', async () => {
    // Review finding: a flat grey image scored 100.
    const res = await score({
      content_type: 'image',
      content: `${media.origin}/story.png`,
      platform: 'instagram',
      format: 'story',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      basis: 'format_checklist',
      mode: 'standard',
      mode_source: 'default',
      language: null,
      blockers: [],
      not_judged: [{ check: 'visual_content', reason: 'not_analysed' }],
    });
  });

  it('gains at least half the claimed lift when a suggestion is followed', async () => {
    await fc.assert(
      fc.asyncProperty(draftArbitrary, placementArbitrary, async (draft, { platform, format }) => {
        const before = (
          await score({ content_type: 'text', content: render(draft), platform, format })
        ).json();
        for (const item of before.feedback as Array<{ suggestion: string; expected_lift: string }>) {
          const content = render(follow(draft, item.suggestion));
          const after = (await score({ content_type: 'text', content, platform, format })).json();
          expect(after.score - before.score, item.suggestion).toBeGreaterThanOrEqual(
            Number(item.expected_lift) / 2,
          );
        }
      }),
      { numRuns: 12 },
    );
  });

  it('does not count "never share your data" or "#follow" as a call to action', async () => {
    for (const content of [
      'Never share your data with strangers online.',
      'Our new mug is here #follow #share',
    ]) {
      const res = (await score({ content_type: 'text', content, platform: 'instagram' })).json();
      expect(
        res.feedback.some((f: { suggestion: string }) =>
          f.suggestion.startsWith('End with a call to action'),
        ),
        content,
      ).toBe(true);
    }
  });

  it('judges a recall notice as an announcement, detected or requested, and refuses an unknown mode', async () => {
    const recall =
      'Product recall: batches 4410 to 4432 of our oat drink may contain milk. Do not consume the product; return it for a full refund.';
    const detected = (await score({ content_type: 'text', content: recall, platform: 'facebook' })).json();
    expect(detected).toMatchObject({ mode: 'announcement', mode_source: 'detected' });
    const text = detected.feedback.map((f: { suggestion: string }) => f.suggestion).join('\n');
    expect(text).not.toMatch(/warmer|call to action|Share this|question/i);
    const requested = (
      await score({
        content_type: 'text',
        content: 'Stores close at 4 pm on Sunday.',
        platform: 'facebook',
        mode: 'announcement',
      })
    ).json();
    expect(requested).toMatchObject({ mode: 'announcement', mode_source: 'request' });
    expectProblem(
      await score({ content_type: 'text', content: recall, platform: 'facebook', mode: 'apology' }),
      400,
      'Invalid Mode',
    );
  });
});

describe('without the loopback test setting', () => {
  it('refuses a loopback media URL', async () => {
    const strict = await startTestService();
    try {
      const { key: k } = await workspaceWithKey(strict.db, { plan: 'agency' });
      const res = await strict.request({
        method: 'POST',
        url: '/v1/studio/score',
        key: k,
        payload: { content_type: 'image', content: `${media.origin}/story.png`, platform: 'instagram' },
      });
      expectProblem(res, 422, 'Media URL Refused');
    } finally {
      await strict.close();
    }
  });
});
