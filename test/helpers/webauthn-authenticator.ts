/**
 * A software WebAuthn authenticator and client for the API tests: it answers registration and
 * sign-in options the way a browser and a passkey would, byte for byte, so the service's real
 * verification (@simplewebauthn/server) runs on it. ES256 keys from node:crypto, the `none`
 * attestation format, discoverable credentials (the user handle travels with each assertion).
 *
 * References: WebAuthn Level 3 (https://www.w3.org/TR/webauthn-3/) section 5.8.1 (client data),
 * 6.1 (authenticator data), 6.5.2 (attested credential data), 6.5.4 (attestation object), 8.7 (the
 * `none` format), 6.3.3 (assertion signature over authenticatorData || SHA-256(clientDataJSON));
 * COSE keys from RFC 9052/9053; CBOR from RFC 8949.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** The CBOR values this helper writes: unsigned and negative integers, byte and text strings, arrays, maps. */
type Cbor = number | Uint8Array | string | Cbor[] | Map<Cbor, Cbor>;

/** The head of a CBOR data item (RFC 8949 section 3): major type in the top 3 bits, then the argument. */
function head(major: number, argument: number): Buffer {
  const m = major << 5;
  if (argument < 24) return Buffer.from([m | argument]);
  if (argument < 0x100) return Buffer.from([m | 24, argument]);
  if (argument < 0x10000) {
    const b = Buffer.alloc(3);
    b[0] = m | 25;
    b.writeUInt16BE(argument, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = m | 26;
  b.writeUInt32BE(argument, 1);
  return b;
}

/**
 * Encodes one value (RFC 8949 section 3.1): major type 0 (unsigned integer), 1 (negative integer,
 * -1 - n), 2 (byte string), 3 (UTF-8 text string), 4 (array), 5 (map, in insertion order; the
 * WebAuthn structures here need no canonical ordering beyond what they are given).
 */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error('only integers');
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const parts: Buffer[] = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** Authenticator data flags (WebAuthn L3 section 6.1). */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  userHandle: string;
  counter: number;
}

interface RegistrationOptionsJSON {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptionsJSON {
  challenge: string;
  rpId?: string;
}

export class SoftwareAuthenticator {
  readonly credentials: SoftCredential[] = [];
  readonly origin: string;
  readonly rpId: string;
  constructor(origin: string, rpId: string) {
    this.origin = origin;
    this.rpId = rpId;
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin = this.origin) {
    // Section 5.8.1: the JSON the signature covers (through its hash), as a browser serialises it.
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** A new credential, not registered anywhere (for "unknown credential" cases too). */
  newCredential(userHandle: string): SoftCredential {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credential = { id: randomBytes(16), privateKey, publicKey, userHandle, counter: 0 };
    this.credentials.push(credential);
    return credential;
  }

  /** The COSE_Key of an ES256 public key (RFC 9053 section 7.1.1: kty EC2, alg -7, crv P-256, x, y). */
  private coseKey(publicKey: KeyObject): Buffer {
    const jwk = publicKey.export({ format: 'jwk' });
    return cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  /**
   * Authenticator data (section 6.1): SHA-256 of the RP id (32 bytes), flags (1), signature counter
   * (4, big-endian), then for a registration the attested credential data (section 6.5.2): AAGUID
   * (16 zero bytes here), credential id length (2, big-endian), credential id, COSE public key.
   */
  private authenticatorData(credential: SoftCredential, attested: boolean, rpId = this.rpId): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const parts: Buffer[] = [sha256(rpId), Buffer.from([UP | UV | (attested ? AT : 0)]), counter];
    if (attested) {
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credential.id.length);
      parts.push(Buffer.alloc(16), idLength, credential.id, this.coseKey(credential.publicKey));
    }
    return Buffer.concat(parts);
  }

  /** The answer to registration options (navigator.credentials.create + toJSON), `none` attestation. */
  register(options: RegistrationOptionsJSON, opts: { origin?: string } = {}) {
    const credential = this.newCredential(options.user.id);
    const authData = this.authenticatorData(credential, true, options.rp.id ?? this.rpId);
    // Section 6.5.4 / 8.7: {"fmt": "none", "attStmt": {}, "authData": bytes}.
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      credential,
      response: {
        id: b64url(credential.id),
        rawId: b64url(credential.id),
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, opts.origin)),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
        authenticatorAttachment: 'platform' as const,
        clientExtensionResults: {},
      },
    };
  }

  /**
   * The answer to sign-in options (navigator.credentials.get + toJSON) from `credential`, its counter
   * moved on by one unless `counter` is given. `signWith` signs with another key (a forged assertion).
   */
  assert(
    options: RequestOptionsJSON,
    credential: SoftCredential,
    opts: { counter?: number; signWith?: KeyObject; origin?: string } = {},
  ) {
    credential.counter = opts.counter ?? credential.counter + 1;
    const authData = this.authenticatorData(credential, false, options.rpId ?? this.rpId);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, opts.origin);
    // Section 6.3.3: an ECDSA (DER) signature over authenticatorData || SHA-256(clientDataJSON).
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(clientDataJSON)]),
      opts.signWith ?? credential.privateKey,
    );
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
    };
  }
}
