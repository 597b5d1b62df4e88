import { useState } from 'preact/hooks';
import { PILLARS, PLATFORMS, unwrap, type Platform } from '../api.ts';
import type { Ok } from '../../../sdk/src/client.ts';
import type { ViewProps } from '../main.tsx';
import { ErrorBox, Section, cap } from '../ui.tsx';

type Kind = 'text' | 'image' | 'video';

const OUTLOOK_WORDS = { up: 'up', flat: 'no clear effect', down: 'down' } as const;
type Format = 'post' | 'story' | 'reel' | 'short' | 'thread';

export function StudioView({ session }: ViewProps) {
  const [kind, setKind] = useState<Kind>('text');
  const [content, setContent] = useState('');
  const [platform, setPlatform] = useState<Platform>('instagram');
  const [format, setFormat] = useState<Format | ''>('');
  const [result, setResult] = useState<Ok<'/v1/studio/score', 'post'> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const score = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      setResult(
        unwrap(
          await session.client.POST('/v1/studio/score', {
            body: { content_type: kind, content, platform, ...(format ? { format } : {}) },
          }),
        ),
      );
    } catch (err) {
      setResult(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Content studio</h1>
      <Section title="Draft">
        <form class="stack-form" onSubmit={score}>
          <div class="controls">
            <label>
              Content
              <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
                <option value="text">Text</option>
                <option value="image">Image URL</option>
                <option value="video">Video URL</option>
              </select>
            </label>
            <label>
              Platform
              <select value={platform} onChange={(e) => setPlatform(e.currentTarget.value as Platform)}>
                {PLATFORMS.map((p) => (
                  <option value={p} key={p}>
                    {cap(p)}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Format
              <select value={format} onChange={(e) => setFormat(e.currentTarget.value as Format | '')}>
                <option value="">Platform default</option>
                {(['post', 'story', 'reel', 'short', 'thread'] as const).map((f) => (
                  <option value={f} key={f}>
                    {cap(f)}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <label for="draft">{kind === 'text' ? 'Text of the draft' : `Address (URL) of the ${kind}`}</label>
          {kind === 'text' ? (
            <textarea
              id="draft"
              rows={5}
              required
              value={content}
              onInput={(e) => setContent(e.currentTarget.value)}
            />
          ) : (
            <input
              id="draft"
              type="url"
              required
              value={content}
              onInput={(e) => setContent(e.currentTarget.value)}
            />
          )}
          <button type="submit" disabled={busy}>
            {busy ? 'Scoring…' : 'Score the draft'}
          </button>
        </form>
        {error !== null && <ErrorBox error={error} />}
      </Section>
      {result && (
        <div class="grid">
          <Section title="Format checklist">
            <p class="big" data-testid="draft-score">
              {result.score}
            </p>
            <p class="muted">
              {cap(result.platform)} {result.format}: the share of the platform&apos;s format checks the draft
              passes, capped by any problem below. Not a forecast of performance.
            </p>
            {result.flags.length > 0 && (
              <ul class="recs" data-testid="draft-flags">
                {result.flags.map((f) => (
                  <li key={f.check}>
                    <strong>{f.detail}</strong> {f.suggestion}
                  </li>
                ))}
              </ul>
            )}
            <p class="muted" data-testid="pillar-outlook">
              Likely effect on the pillars (a direction only where the checks clearly point one way; not
              calibrated against outcomes):{' '}
              {PILLARS.map((p) => `${p} ${OUTLOOK_WORDS[result.pillar_outlook[p].direction]}`).join(', ')}.
            </p>
          </Section>
          <Section title="Suggestions">
            <ol class="recs" data-testid="suggestions">
              {result.feedback.map((f) => (
                <li key={f.priority}>
                  {f.suggestion} <span class="muted">({f.expected_lift})</span>
                </li>
              ))}
            </ol>
          </Section>
        </div>
      )}
    </>
  );
}
