// The metrics server's TLS certificate (--metrics-secure): tls.crt/tls.key read from --metrics-cert-path, or else a
// self-signed EC P-256 certificate built in memory with a minimal DER encoder (Node has no X.509 builder), as
// controller-runtime does. Called by the CLI (cmd/run.ts) at startup; never writes the key to disk or logs it.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { ConfigError } from '../core/errors.js';

export interface PemCertificate {
  /** PEM `CERTIFICATE`. */
  readonly cert: string;
  /** PEM `PRIVATE KEY` (PKCS#8). */
  readonly key: string;
}

export interface SelfSignedOptions {
  /** @default 'helm-operator' */
  readonly commonName?: string;
  /** @default ['localhost'] */
  readonly dnsNames?: readonly string[];
  /** IPv4 addresses only. @default ['127.0.0.1'] */
  readonly ipAddresses?: readonly string[];
  /** @default new Date() */
  readonly now?: Date;
}

const HOUR_MS = 3_600_000;
const YEAR_MS = 365 * 24 * HOUR_MS;

/** A fresh key pair and a certificate for it, valid from an hour ago for a year, signed by itself. */
export function selfSignedCertificate(o: SelfSignedOptions = {}): PemCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = (o.now ?? new Date()).getTime();
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(o.commonName ?? 'helm-operator', 'utf8')))));
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const san = seq(
    ...(o.dnsNames ?? ['localhost']).map((d) => tlv(0x82, Buffer.from(d, 'ascii'))),
    ...(o.ipAddresses ?? ['127.0.0.1']).map((ip) => tlv(0x87, ipv4(ip))),
  );
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40; // positive and without a leading zero byte
  const tbs = seq(
    tlv(0xa0, int(Buffer.from([2]))), // v3
    int(serial),
    ecdsaWithSha256,
    name, // issuer = subject: self-signed
    seq(time(new Date(now - HOUR_MS)), time(new Date(now + YEAR_MS))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(
      0xa3,
      seq(
        extension('2.5.29.19', true, seq()), // basicConstraints: not a CA
        extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x07, 0x80]))), // keyUsage: digitalSignature
        extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
        extension('2.5.29.17', false, san),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA-Sig-Value, as X.509 wants
  const der = seq(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const b64 = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${b64}-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

export interface ServingCertificateOptions {
  /** --metrics-cert-path: a directory; '' generates a self-signed certificate. */
  readonly certPath: string;
  /** --metrics-cert-name. */
  readonly certName: string;
  /** --metrics-cert-key. */
  readonly keyName: string;
}

/** The metrics server's certificate; a missing, unreadable or mismatched pair is a ConfigError naming the flag. */
export function servingCertificate(o: ServingCertificateOptions): PemCertificate & { readonly selfSigned: boolean } {
  if (o.certPath === '') return { ...selfSignedCertificate(), selfSigned: true };
  const read = (file: string) => {
    try {
      return readFileSync(join(o.certPath, file), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new ConfigError(`--metrics-cert-path: cannot read ${join(o.certPath, file)}: ${code}`, { cause: err });
    }
  };
  const pair = { cert: read(o.certName), key: read(o.keyName) };
  try {
    createSecureContext(pair);
  } catch (err) {
    throw new ConfigError(
      `--metrics-cert-path: ${o.certName} and ${o.keyName} in ${o.certPath} are not a usable certificate and key: ${(err as Error).message}`,
      { cause: err },
    );
  }
  return { ...pair, selfSigned: false };
}

// --- DER (X.690) encoding: just the types a certificate needs ---

function tlv(tag: number, body: Buffer): Buffer {
  const n = body.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

/** An unsigned big-endian integer (a 0 byte is prepended when the top bit is set). */
function int(bytes: Buffer): Buffer {
  return tlv(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) groups.unshift((v & 0x7f) | 0x80);
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2))) : tlv(0x18, Buffer.from(digits));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

function ipv4(ip: string): Buffer {
  if (!isIPv4(ip)) throw new TypeError(`${JSON.stringify(ip)} is not an IPv4 address`);
  return Buffer.from(ip.split('.').map(Number));
}
