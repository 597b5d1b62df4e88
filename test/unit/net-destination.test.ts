import { describe, expect, it } from 'vitest';
import { checkDestination, pinnedLookup, RefusedDestinationError } from '../../src/infra/net/destination.ts';

const dns =
  (answers: Record<string, string[]>) =>
  async (hostname: string): Promise<string[]> => {
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found;
  };

async function refusal(promise: Promise<unknown>): Promise<RefusedDestinationError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RefusedDestinationError);
  return error as RefusedDestinationError;
}

describe('checkDestination', () => {
  const resolve = dns({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'rebind.example.com': ['93.184.216.34', '10.0.0.5'],
    'mapped.example.com': ['::ffff:169.254.169.254'],
    'empty.example.com': [],
  });

  it('answers every address of a public name and the one to pin', async () => {
    const checked = await checkDestination('hooks.example.com', { resolve });
    expect(checked).toEqual({
      hostname: 'hooks.example.com',
      addresses: ['93.184.216.34', '2606:2800:220:1::1'],
      address: '93.184.216.34',
    });
  });

  it('refuses a name when any one of its addresses is internal (DNS rebinding set-up)', async () => {
    const error = await refusal(checkDestination('rebind.example.com', { resolve }));
    expect(error.kind).toBe('unresolvable');
    // The same message as a name that does not resolve at all: what our DNS answered stays unsaid.
    expect(error.message).toBe('host "rebind.example.com" has no public internet address');
    expect((await refusal(checkDestination('mapped.example.com', { resolve }))).message).toBe(
      'host "mapped.example.com" has no public internet address',
    );
  });

  it('judges IP literals without DNS, brackets included', async () => {
    const never = async () => {
      throw new Error('must not resolve');
    };
    expect((await checkDestination('[2606:4700::1111]', { resolve: never })).address).toBe('2606:4700::1111');
    expect((await refusal(checkDestination('[::1]', { resolve: never }))).message).toBe(
      'host is a loopback address (::1/128)',
    );
    expect((await checkDestination('127.0.0.1', { resolve: never, allowLoopback: true })).address).toBe(
      '127.0.0.1',
    );
  });

  it('refuses internal names before resolving them', async () => {
    let asked = false;
    const spy = async () => {
      asked = true;
      return ['93.184.216.34'];
    };
    expect((await refusal(checkDestination('metadata.google.internal', { resolve: spy }))).kind).toBe(
      'refused',
    );
    expect((await refusal(checkDestination('localhost', { resolve: spy }))).kind).toBe('refused');
    expect(asked).toBe(false);
  });

  it('reports names that do not resolve, or not in time, as unresolvable', async () => {
    const missing = await refusal(checkDestination('nowhere.example.com', { resolve }));
    expect(missing).toMatchObject({
      kind: 'unresolvable',
      message: 'host "nowhere.example.com" has no public internet address',
    });
    expect((await refusal(checkDestination('empty.example.com', { resolve }))).kind).toBe('unresolvable');
    const slow = () => new Promise<string[]>(() => {});
    const timedOut = await refusal(
      checkDestination('slow.example.com', { resolve: slow, resolveTimeoutMs: 20 }),
    );
    expect(timedOut).toMatchObject({
      kind: 'unresolvable',
      message: 'host "slow.example.com" has no public internet address',
    });
  });
});

describe('pinnedLookup', () => {
  it('answers the checked address whatever name is asked, in both callback forms', async () => {
    const lookup = pinnedLookup('2606:4700::1111') as unknown as (
      host: string,
      options: { all?: boolean },
      cb: (...args: unknown[]) => void,
    ) => void;
    const one = await new Promise<unknown[]>((r) => lookup('evil.example.com', {}, (...args) => r(args)));
    expect(one).toEqual([null, '2606:4700::1111', 6]);
    const all = await new Promise<unknown[]>((r) =>
      lookup('evil.example.com', { all: true }, (...args) => r(args)),
    );
    expect(all).toEqual([null, [{ address: '2606:4700::1111', family: 6 }]]);
  });
});
