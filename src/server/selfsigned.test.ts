// The self-signed certificate parsed back by Node's X509Certificate (subject, SAN, validity, key match, signature),
// served over real HTTPS, and servingCertificate's files-or-generated choice with its ConfigErrors.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { selfSignedCertificate, servingCertificate } from './selfsigned.js';

describe('selfSignedCertificate', () => {
  it('is a v3 certificate for CN=helm-operator, localhost and 127.0.0.1, valid now-1h..+1y, signed by its key', () => {
    const now = new Date('2030-06-01T12:00:00Z');
    const { cert, key } = selfSignedCertificate({ now });
    expect(cert).toMatch(/^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n$/);
    expect(key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const x = new X509Certificate(cert);
    expect(x.subject).toBe('CN=helm-operator');
    expect(x.issuer).toBe('CN=helm-operator');
    expect(x.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    expect(x.validFromDate.toISOString()).toBe('2030-06-01T11:00:00.000Z');
    expect(x.validToDate.toISOString()).toBe('2031-06-01T12:00:00.000Z');
    expect(x.ca).toBe(false);
    expect(x.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(x.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(x.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.checkHost('localhost')).toBe('localhost');
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
  });

  it('gives every certificate its own key and a positive random serial', () => {
    const a = new X509Certificate(selfSignedCertificate().cert);
    const b = new X509Certificate(selfSignedCertificate().cert);
    expect(a.serialNumber).not.toBe(b.serialNumber);
    expect(a.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
    expect(a.publicKey.equals(b.publicKey)).toBe(false);
  });

  it('uses GeneralizedTime from 2050 on and accepts other names and addresses', () => {
    const x = new X509Certificate(
      selfSignedCertificate({
        now: new Date('2049-12-31T23:30:00Z'),
        commonName: 'metrics',
        dnsNames: ['a.example', 'b.example'],
        ipAddresses: ['10.0.0.1'],
      }).cert,
    );
    expect(x.validFromDate.toISOString()).toBe('2049-12-31T22:30:00.000Z');
    expect(x.validToDate.toISOString()).toBe('2050-12-31T23:30:00.000Z');
    expect(x.subject).toBe('CN=metrics');
    expect(x.subjectAltName).toBe('DNS:a.example, DNS:b.example, IP Address:10.0.0.1');
    expect(() => selfSignedCertificate({ ipAddresses: ['::1'] })).toThrow('is not an IPv4 address');
  });

  it('serves HTTPS', async () => {
    const { cert, key } = selfSignedCertificate();
    const server = createHttpsServer({ cert, key }, (_req, res) => res.end('secure'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const { body, peer } = await new Promise<{ body: string; peer: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false }, (res) => {
          const peerCert = (res.socket as TLSSocket).getPeerCertificate();
          let data = '';
          res.setEncoding('utf8').on('data', (d: string) => {
            data += d;
          });
          res.on('end', () => resolve({ body: data, peer: String(peerCert.subject.CN) }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('secure');
      expect(peer).toBe('helm-operator');
      // Verified against itself as the trust anchor, for the names in its SAN.
      const verified = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/', ca: cert, servername: 'localhost' }, (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.statusCode)));
        });
        req.on('error', reject);
        req.end();
      });
      expect(verified).toBe('200');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('servingCertificate', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('generates a self-signed certificate without --metrics-cert-path', () => {
    const c = servingCertificate({ certPath: '', certName: 'tls.crt', keyName: 'tls.key' });
    expect(c.selfSigned).toBe(true);
    expect(new X509Certificate(c.cert).subject).toBe('CN=helm-operator');
  });

  it('reads the named files from --metrics-cert-path', () => {
    dir = mkdtempSync(join(tmpdir(), 'metrics-cert-'));
    const pair = selfSignedCertificate({ commonName: 'from-files' });
    writeFileSync(join(dir, 'cert.pem'), pair.cert);
    writeFileSync(join(dir, 'key.pem'), pair.key);
    const c = servingCertificate({ certPath: dir, certName: 'cert.pem', keyName: 'key.pem' });
    expect(c).toEqual({ ...pair, selfSigned: false });
  });

  it('fails with a ConfigError naming the flag for a missing file or a mismatched pair', () => {
    dir = mkdtempSync(join(tmpdir(), 'metrics-cert-'));
    const opts = { certPath: dir, certName: 'tls.crt', keyName: 'tls.key' };
    expect(() => servingCertificate(opts)).toThrow(ConfigError);
    expect(() => servingCertificate(opts)).toThrow(`--metrics-cert-path: cannot read ${join(dir, 'tls.crt')}: ENOENT`);
    writeFileSync(join(dir, 'tls.crt'), selfSignedCertificate().cert);
    writeFileSync(join(dir, 'tls.key'), selfSignedCertificate().key);
    expect(() => servingCertificate(opts)).toThrow(/--metrics-cert-path: tls\.crt and tls\.key in .* are not a usable/);
  });
});
