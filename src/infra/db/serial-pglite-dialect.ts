import {
  PGliteDialect,
  type DatabaseConnection,
  type Driver,
  type TransactionSettings,
  type PGliteDialectConfig,
} from 'kysely';

/**
 * PGlite is a single connection. Kysely's PGlite driver hands the same connection to every
 * caller, so a plain query issued while another request holds a transaction would run *inside*
 * that transaction. This wrapper makes connection use exclusive: a caller waits until the
 * previous query or transaction has released the connection, exactly like a pool of size one.
 */
export class SerialPGliteDialect extends PGliteDialect {
  constructor(config: PGliteDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return new SerialDriver(super.createDriver());
  }
}

class SerialDriver implements Driver {
  readonly #inner: Driver;
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | null = null;

  constructor(inner: Driver) {
    this.#inner = inner;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise((resolve) => (release = resolve));
    await previous;
    this.#release = release;
    return this.#inner.acquireConnection();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.#inner.releaseConnection(connection);
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(connection);
  }
  savepoint(...args: Parameters<NonNullable<Driver['savepoint']>>): Promise<void> {
    return this.#inner.savepoint!(...args);
  }
  rollbackToSavepoint(...args: Parameters<NonNullable<Driver['rollbackToSavepoint']>>): Promise<void> {
    return this.#inner.rollbackToSavepoint!(...args);
  }
  releaseSavepoint(...args: Parameters<NonNullable<Driver['releaseSavepoint']>>): Promise<void> {
    return this.#inner.releaseSavepoint!(...args);
  }
  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}
