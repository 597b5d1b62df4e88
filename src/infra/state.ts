/**
 * Per-service state that a domain keeps between calls (a cache, settings a test changed). It
 * hangs off the service's context (`ctx.state`), never off a module, so two services in one
 * process (tests, the bench) share nothing. A domain declares a slot once; each service creates
 * the slot's value on first use.
 */
export interface StateSlot<T> {
  /** For debugging only; slots are told apart by identity. */
  readonly name: string;
  readonly create: () => T;
}

export function stateSlot<T>(name: string, create: () => T): StateSlot<T> {
  return { name, create };
}

export class ServiceState {
  readonly #values = new Map<StateSlot<unknown>, unknown>();

  /** This service's value of `slot`, created on first use. */
  get<T>(slot: StateSlot<T>): T {
    if (!this.#values.has(slot)) this.#values.set(slot, slot.create());
    return this.#values.get(slot) as T;
  }
}
