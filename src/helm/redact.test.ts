import { describe, expect, it } from 'vitest';
import { REDACTED, redact, secretKey, secretsOf } from './redact.js';

describe('secretsOf', () => {
  const values = { db: { password: 'hunter2-secret', port: 5432 }, tags: ['alpha-tag', 'x'], quote: 'say "hi"' };

  it('collects the values under secret keys (and their JSON-escaped form), not ordinary values, numbers or keys', () => {
    const secrets = secretsOf({ ...values, token: 'say "hi"' });
    expect(secrets).toEqual(expect.arrayContaining(['hunter2-secret', 'say "hi"', 'say \\"hi\\"']));
    expect(secrets).not.toContain('alpha-tag');
    expect(secrets).not.toContain('x');
    expect(secrets).not.toContain('password');
    expect(secrets).not.toContain('5432');
  });

  it('hides no ordinary value, however long: names, hosts and images stay readable', () => {
    const podinfo = {
      image: { repository: 'ghcr.io/stefanprodan/podinfo', tag: '6.7.1' },
      certificate: { create: true, dnsNames: ['podinfo'], issuerRef: { kind: 'ClusterIssuer', name: 'self-signed' } },
      ingress: { enabled: true, hosts: [{ host: 'podinfo.local' }] },
      tls: { secretName: 'podinfo-tls', caCert: 'xyz' },
      tolerations: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
    };
    expect(secretsOf(podinfo)).toEqual([]);
  });

  it('collects short values and numbers under secret keys, at any depth below them', () => {
    const secrets = secretsOf({
      auth: { password: 'pw1', apiToken: 'tok', tls: { privateKey: 'k9' }, pin: { passphrase: 1234 } },
      secrets: { db: 'abc' },
      aws: { access_key: 'AKIA1', credentials: { default: 'c1' } },
    });
    expect(secrets).toEqual(expect.arrayContaining(['pw1', 'tok', 'k9', '1234', 'abc', 'AKIA1', 'c1']));
  });

  it('hides a PEM private key under any key', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END RSA PRIVATE KEY-----';
    expect(secretsOf({ tls: { key: pem } })).toEqual(expect.arrayContaining([pem, 'MIIBOgIBAAJBAKj34GkxFhD9']));
  });

  it('adds the given strings whatever their length (values from Secrets), with escaped forms and long lines', () => {
    const pem = '-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END KEY-----';
    const secrets = secretsOf({ mode: 'text' }, ['pw', ' ', pem, 'a"b']);
    expect(secrets).toEqual(expect.arrayContaining(['pw', 'a"b', 'a\\"b', pem, 'MIIBOgIBAAJBAKj34GkxFhD9']));
    expect(secrets).not.toContain(' ');
    expect(secrets).not.toContain('text');
    expect(redact('Error: pw in line pw2', secrets)).toBe(`Error: ${REDACTED} in line pw2`);
  });

  it('lists longer secrets first, so that a secret containing another is replaced whole', () => {
    const secrets = secretsOf({ password: 'abc', token: 'abc-and-more-abc' });
    expect(secrets.indexOf('abc-and-more-abc')).toBeLessThan(secrets.indexOf('abc'));
  });
});

describe('redact', () => {
  it('replaces every whole occurrence of every secret', () => {
    const values = { db: { password: 'hunter2-secret' }, apiKey: 'alpha-tag', token: 'say "hi"' };
    const text = 'Error: bad "hunter2-secret" and hunter2-secret, tag alpha-tag, quoted "say \\"hi\\""';
    const out = redact(text, secretsOf(values));
    expect(out).not.toMatch(/hunter2|alpha-tag|say/);
    expect(out).toContain(REDACTED);
    expect(out.startsWith('Error: bad')).toBe(true);
  });

  it.each([
    ['context canceled', 'Error: INSTALLATION FAILED: context canceled'],
    [
      'connection refused',
      'Error: Kubernetes cluster unreachable: dial tcp 127.0.0.1:6443: connect: connection refused',
    ],
    ['deadline exceeded', 'Error: UPGRADE FAILED: context deadline exceeded'],
  ])('keeps helm\'s "%s" whole while a value "text" is present', (_, message) => {
    const values = { token: 'text', secret: 'con', apiKey: 'used', password: 'ed' };
    expect(redact(message, secretsOf(values))).toBe(message);
  });

  it('keeps a word that merely contains a long value', () => {
    const secrets = secretsOf({ password: 'database' });
    expect(redact('databases are fine; database is down', secrets)).toBe(`databases are fine; ${REDACTED} is down`);
  });

  it('still hides a password, even a short one, where it stands alone', () => {
    const secrets = secretsOf({ auth: { password: 'pw9' } });
    const out = redact('Error: login failed for user admin with password pw9 (pw99 is another word)', secrets);
    expect(out).toBe(`Error: login failed for user admin with password ${REDACTED} (pw99 is another word)`);
  });

  it('hides a value next to punctuation, quotes and URL delimiters', () => {
    const secrets = secretsOf({ token: 's3cr3t-pw' });
    expect(redact('https://bob:s3cr3t-pw@host "s3cr3t-pw", =s3cr3t-pw;', secrets)).toBe(
      `https://bob:${REDACTED}@host "${REDACTED}", =${REDACTED};`,
    );
  });

  it('treats regular-expression characters in a value literally', () => {
    const secrets = secretsOf({ password: 'a.b*c(d)' });
    expect(redact('got a.b*c(d) and aXbbc(d)', secrets)).toBe(`got ${REDACTED} and aXbbc(d)`);
  });
});

describe('the names of the chart, release, namespace, CR and rendered objects', () => {
  const names = ['podinfo', 'podinfo-sample', 'team-a'];

  it('are never hidden when a value equals one of them: a chart named like a value stays in the message', () => {
    const secrets = secretsOf({ password: 'podinfo', token: 'podinfo-sample', secret: 'team-a' }, [], names);
    const message = 'template: podinfo/templates/ingress.yaml:3: release podinfo-sample in team-a';
    expect(redact(message, secrets)).toBe(message);
  });

  it('are never hidden in part: a value that is a piece of an object name leaves the name whole', () => {
    const secrets = secretsOf({ password: 'podinfo', token: 'ghcr.io/podinfo' });
    const message = 'Ingress "podinfo-sample" is invalid; Service "web-podinfo" and "podinfo-web-01" too';
    expect(redact(message, secrets)).toBe(message);
  });

  it('still hide a password, even one that is also part of a name, where it stands alone', () => {
    const secrets = secretsOf({ auth: { password: 'sample' }, token: 'hunter2-very-secret' }, [], names);
    expect(redact('login sample failed. token hunter2-very-secret.', secrets)).toBe(
      `login ${REDACTED} failed. token ${REDACTED}.`,
    );
    expect(redact('unknown field "spec.hunter2-very-secret"', secrets)).toBe(`unknown field "spec.${REDACTED}"`);
    expect(redact('release podinfo-sample', secrets)).toBe('release podinfo-sample');
  });

  it('keep a value from a Secret hidden unless it is one of the names', () => {
    expect(secretsOf({}, ['s3cr3t-value', 'podinfo'], names)).toEqual(['s3cr3t-value']);
  });
});

describe('secretKey', () => {
  it.each([
    'password',
    'adminPassword',
    'db.passwd',
    'passphrase',
    'token',
    'githubToken',
    'secret',
    'clientSecret',
    'SECRET_KEY_BASE',
    'secrets',
    'credentials',
    'apiKey',
    'api_key',
    'accessKey',
    'secretKey',
    'privateKey',
    'private-key',
  ])('%s names secret material', (key) => {
    expect(secretKey(key)).toBe(true);
  });

  it.each([
    'key',
    'keys',
    'monkey',
    'cert',
    'caCert',
    'certificate',
    'secretName',
    'existingSecret',
    'tokenPath',
    'credentialsSecretName',
    'cacheKey',
    'configMapKey',
    'hostKey',
    'name',
  ])('%s does not', (key) => {
    expect(secretKey(key)).toBe(false);
  });
});
