import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { explain } from './api.ts';

/** An API error in plain words, with the request id to quote to support. */
export function ErrorBox({ error }: { error: unknown }) {
  const e = explain(error);
  return (
    <div class="error" role="alert">
      <p>
        <strong>{e.summary}</strong>
      </p>
      {e.detail && <p data-testid="error-advice">{e.detail}</p>}
      {e.technical && (
        <details>
          <summary>Technical detail</summary>
          <p>{e.technical}</p>
        </details>
      )}
      {e.requestId && (
        <p class="muted">
          Request id for support: <code data-testid="request-id">{e.requestId}</code>
        </p>
      )}
    </div>
  );
}

export type Async<T> =
  { state: 'loading' } | { state: 'error'; error: unknown } | { state: 'ready'; value: T };

/** Runs `load` when `deps` change; `reload()` runs it again. Stale answers are dropped. */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]) {
  const [result, setResult] = useState<Async<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    setResult({ state: 'loading' });
    load(abort.signal).then(
      (value) => !abort.signal.aborted && setResult({ state: 'ready', value }),
      (error: unknown) => !abort.signal.aborted && setResult({ state: 'error', error }),
    );
    return () => abort.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return [result, reload] as const;
}

export function Loaded<T>({ data, children }: { data: Async<T>; children: (v: T) => ComponentChildren }) {
  if (data.state === 'loading')
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  if (data.state === 'error') return <ErrorBox error={data.error} />;
  return <>{children(data.value)}</>;
}

export function Section(props: {
  title: string;
  children: ComponentChildren;
  id?: string;
  hidden?: boolean;
}) {
  const id = props.id ?? `s-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  if (props.hidden) return null;
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {props.children}
    </section>
  );
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function day(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '—';
}

export function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A table's header row: one column header per entry (an entry may be markup, e.g. a screen-reader-only label). */
export function TableHead({ cols }: { cols: ComponentChildren[] }) {
  return (
    <thead>
      <tr>
        {cols.map((c, i) => (
          <th key={i} scope="col">
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** One "Newer"/"Older" paging button; each list keeps its own paging state and range label. */
export function PageButton(props: { disabled: boolean; onClick: () => void; children: ComponentChildren }) {
  return (
    <button type="button" class="secondary" disabled={props.disabled} onClick={props.onClick}>
      {props.children}
    </button>
  );
}

/**
 * Newer/Older buttons and "first–last of total" under a list paged by offset (newest first): the one
 * pager of the audit, report, alert and webhook-delivery lists.
 */
export function OffsetPager(props: {
  offset: number;
  limit: number;
  /** How many rows this page shows. */
  shown: number;
  total: number;
  onOffset: (offset: number) => void;
}) {
  const { offset, limit, shown, total, onOffset } = props;
  return (
    <p class="row">
      <PageButton disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Newer
      </PageButton>
      <span class="muted">
        {offset + 1}–{offset + shown} of {total}
      </span>
      <PageButton disabled={offset + shown >= total} onClick={() => onOffset(offset + limit)}>
        Older
      </PageButton>
    </p>
  );
}

/** An audit's ranked recommendations, as the audit detail and the workspace overview both show them. */
export function Recommendations(props: {
  items: readonly { priority: number; pillar: string; action: string; expected_impact: string }[];
  testId?: string;
}) {
  return (
    <ol class="recs" data-testid={props.testId}>
      {props.items.map((r) => (
        <li key={r.priority}>
          <strong>{cap(r.pillar)}</strong>: {r.action} <span class="muted">({r.expected_impact})</span>
        </li>
      ))}
    </ol>
  );
}

interface Driver {
  pillar: string;
  points: number;
  text: string;
}

/**
 * What moves a score (formula v3's `drivers`, largest effect first): what lifts it and what holds it
 * back, in the API's own sentences, at most `top` of each. A score without drivers says why.
 */
export function Drivers(props: {
  drivers: readonly Driver[] | null | undefined;
  formula: string;
  top?: number;
  testId?: string;
}) {
  const { drivers } = props;
  if (drivers === undefined)
    return (
      <p data-testid={props.testId}>
        Scores of formula {props.formula} do not say what moves them; the next audit scores with the current
        formula, which does.
      </p>
    );
  if (drivers === null)
    return (
      <p data-testid={props.testId}>
        This score was stored without what moves it; the next audit or sync gives it.
      </p>
    );
  const top = props.top ?? 3;
  const lifts = drivers.filter((d) => d.points >= 0.05).slice(0, top);
  const holds = drivers.filter((d) => d.points <= -0.05).slice(0, top);
  const list = (title: string, items: readonly Driver[], none: string) => (
    <>
      <h3>{title}</h3>
      {items.length === 0 ? (
        <p class="muted">{none}</p>
      ) : (
        <ul class="drivers">
          {items.map((d) => (
            <li key={d.text}>
              <strong>{cap(d.pillar)}</strong>: {d.text}
            </li>
          ))}
        </ul>
      )}
    </>
  );
  return (
    <div data-testid={props.testId}>
      <p class="muted">
        Points above or below 50, the score of the median account of the same platform and size.
      </p>
      {list('What lifts it', lifts, 'Nothing lifts it above the median account.')}
      {list('What holds it back', holds, 'Nothing holds it below the median account.')}
    </div>
  );
}

/**
 * An action that cannot be undone: the first click asks, in words, what will happen; only "Yes" acts.
 * Inline rather than a browser dialog, so it reads and focuses like the rest of the page.
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel: string;
  keepLabel?: string;
  disabled?: boolean;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="secondary" disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  return (
    <div class="confirm" role="group" aria-label={props.label}>
      <p>{props.question}</p>
      <div class="row">
        <button
          type="button"
          class="danger"
          disabled={props.disabled}
          onClick={() => {
            setAsking(false);
            props.onConfirm();
          }}
        >
          {props.confirmLabel}
        </button>
        <button type="button" class="secondary" ref={(b) => b?.focus()} onClick={() => setAsking(false)}>
          {props.keepLabel ?? 'Keep it'}
        </button>
      </div>
    </div>
  );
}

/**
 * Shown in place of a form or button the signed-in person's role does not allow (the service would
 * refuse it: src/core/permissions.ts), so no action is offered that cannot complete.
 */
export function RoleNote({ role, what }: { role: string; what: string }) {
  return (
    <p class="note" data-testid="role-note">
      As {role === 'admin' || role === 'owner' ? 'an' : 'a'} {role} in this workspace you can read this;{' '}
      {what} needs a higher role. Ask one of its owners or admins.
    </p>
  );
}

/**
 * What a view does when a person asks (a form sent, a button pressed): `run(work)` clears the last
 * error, marks the view busy, runs `work` and keeps its error for an ErrorBox; it answers whether the
 * work succeeded. One pattern for every form and button of the dashboard.
 */
export function useAction() {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<unknown>): Promise<boolean> => {
    setError(null);
    setBusy(true);
    try {
      await work();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run, setError };
}
