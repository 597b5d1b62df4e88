import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { utcDay } from '../../core/days.ts';

/**
 * Secrets at rest: AES-256-GCM under a key ring. Each sealed value is stored as two columns, the
 * ciphertext (base64 of 12-byte IV || ciphertext || 16-byte tag) and, beside it, the id of the key
 * that sealed it, so keys can be rotated one row at a time and a missing key is detected by id.
 * Each value is bound, as additional authenticated data, to where it lives: its purpose, its
 * `table.column` and the id of its row (a `Binding`, made by `sealedAt` in `sealed-columns.ts`). A
 * ciphertext sealed as one connection's token does not open in another connection's row, nor as a
 * webhook secret, even under the same key. Row-bound values carry the `BOUND_PREFIX` marker; a value
 * without it was sealed with the purpose alone (the earlier format) and opens only through
 * `openPurposeOnly`, which the re-seal at start and `brandhealth encryption rotate` use to bind it.
 *
 * Keys come from ENCRYPTION_KEYS (`kid:base64-of-32-bytes`, comma-separated, the first seals);
 * without it, a key generated once into DATA_DIR (see `loadKeyRing`).
 */

export interface Sealed {
  ciphertext: string;
  keyId: string;
}

export class KeyRingError extends Error {
  override name = 'KeyRingError';
}

/** Where a sealed value lives: bound to its ciphertext, so it opens only there. */
export interface Binding {
  purpose: string;
  /** `table.column`. */
  place: string;
  /** The stable id of the row. */
  row: string;
}

/** Marks a row-bound ciphertext (base64 never contains ':'); values without it are purpose-only. */
export const BOUND_PREFIX = 'r1:';

export function isRowBound(ciphertext: string): boolean {
  return ciphertext.startsWith(BOUND_PREFIX);
}

function aad(binding: Binding): Buffer {
  return Buffer.from(JSON.stringify([BOUND_PREFIX, binding.purpose, binding.place, binding.row]), 'utf8');
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class KeyRing {
  readonly #keys: Map<string, Buffer>;
  /** The key that seals new values. */
  readonly activeKeyId: string;
  /** Told of every value `open` refuses (the service logs it): a moved or altered secret is never silent. */
  onRefused: (error: KeyRingError, binding: Binding) => void = () => {};

  constructor(keys: Array<{ id: string; key: Buffer }>) {
    if (keys.length === 0) throw new KeyRingError('the key ring needs at least one key');
    this.#keys = new Map();
    for (const { id, key } of keys) {
      if (!KEY_ID.test(id)) throw new KeyRingError(`key id "${id}" must be 1-32 letters, digits, - or _`);
      if (key.length !== 32) throw new KeyRingError(`key "${id}" must be 32 bytes, got ${key.length}`);
      if (this.#keys.has(id)) throw new KeyRingError(`key id "${id}" appears twice`);
      this.#keys.set(id, key);
    }
    this.activeKeyId = keys[0]!.id;
  }

  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  has(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  seal(plaintext: string, binding: Binding): Sealed {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.activeKeyId)!, iv);
    cipher.setAAD(aad(binding));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      ciphertext: BOUND_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64'),
      keyId: this.activeKeyId,
    };
  }

  /** Opens a value sealed for exactly this binding; anything else (another row, column or purpose) fails. */
  open(sealed: Sealed, binding: Binding): string {
    try {
      if (!isRowBound(sealed.ciphertext)) {
        throw new KeyRingError(
          `the value in ${binding.place} of row ${binding.row} is sealed without its row binding; ` +
            '`brandhealth encryption rotate` (or a restart) binds it',
        );
      }
      return this.#decrypt(
        sealed,
        sealed.ciphertext.slice(BOUND_PREFIX.length),
        aad(binding),
        () =>
          `the value in ${binding.place} of row ${binding.row} (key "${sealed.keyId}") does not open there: ` +
          'it was sealed for another row, column or purpose, or altered',
      );
    } catch (error) {
      if (error instanceof KeyRingError) this.onRefused(error, binding);
      throw error;
    }
  }

  /**
   * Opens a value of the earlier format, bound to its purpose only. Only for binding such values to
   * their row (start-up and `encryption rotate`): never to use a secret directly.
   */
  openPurposeOnly(sealed: Sealed, purpose: string): string {
    if (isRowBound(sealed.ciphertext)) throw new KeyRingError('the value is row-bound already');
    return this.#decrypt(
      sealed,
      sealed.ciphertext,
      Buffer.from(purpose, 'utf8'),
      () => `a value sealed under key "${sealed.keyId}" does not authenticate`,
    );
  }

  #decrypt(sealed: Sealed, base64: string, additional: Buffer, refused: () => string): string {
    const key = this.#keys.get(sealed.keyId);
    if (!key) throw new KeyRingError(`no key "${sealed.keyId}" in the key ring (ENCRYPTION_KEYS)`);
    const raw = Buffer.from(base64, 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new KeyRingError('the ciphertext is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(additional);
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new KeyRingError(refused());
    }
  }
}

/** `kid:base64,kid:base64` (ENCRYPTION_KEYS). */
export function parseKeyRing(text: string, name = 'ENCRYPTION_KEYS'): KeyRing {
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf(':');
      if (at <= 0) throw new KeyRingError(`${name}: each entry must be "<key id>:<base64 of 32 bytes>"`);
      const id = entry.slice(0, at);
      const b64 = entry.slice(at + 1);
      if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) throw new KeyRingError(`${name}: key "${id}" is not base64`);
      return { id, key: Buffer.from(b64, 'base64') };
    });
  try {
    return new KeyRing(entries);
  } catch (error) {
    throw new KeyRingError(`${name}: ${(error as Error).message}`);
  }
}

/** A new key ring entry for ENCRYPTION_KEYS: a dated id and 32 random bytes. */
export function generateKeyEntry(now = new Date()): string {
  const id = `k${utcDay(now).replace(/-/g, '')}-${randomBytes(3).toString('hex')}`;
  return `${id}:${randomBytes(32).toString('base64')}`;
}

export const KEY_FILE = 'encryption.key';

/**
 * The key ring of this process: ENCRYPTION_KEYS when set; otherwise the key in DATA_DIR/encryption.key,
 * generated (mode 0600) the first time, so the embedded database and a developer's PostgreSQL work
 * without set-up; an in-memory data folder gets a key for the life of the process.
 */
export function loadKeyRing(options: { keys: string | null; dataDir: string }): {
  keyRing: KeyRing;
  source: 'env' | 'file' | 'memory';
} {
  if (options.keys) return { keyRing: parseKeyRing(options.keys), source: 'env' };
  if (options.dataDir.startsWith('memory://'))
    return { keyRing: parseKeyRing(generateKeyEntry()), source: 'memory' };
  const file = path.join(options.dataDir, KEY_FILE);
  fs.mkdirSync(options.dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    // Written whole under a temporary name, then linked into place: link fails when the file exists,
    // so two processes starting at once agree on one key and neither reads a half-written file.
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(temp, `${generateKeyEntry()}\n`, { mode: 0o600 });
    try {
      fs.linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  try {
    return { keyRing: parseKeyRing(text, file), source: 'file' };
  } catch (error) {
    throw new KeyRingError((error as Error).message);
  }
}
