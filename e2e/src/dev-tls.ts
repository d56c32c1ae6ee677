/**
 * The certificate the dev router serves for an https PUBLIC_BASE_URL when none is given: a local CA (kept in
 * TLS_DIR between runs, so it is trusted once) issues a fresh server certificate at every start for the loopback
 * names (localhost, 127.0.0.1, ::1) and the public host. Keys are ECDSA P-256; private keys are written 0600.
 * Certificates are made with `selfsigned` (@peculiar/x509 on WebCrypto); node:crypto reads them back.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isIP } from 'node:net';
import { generate } from 'selfsigned';
import { ConfigError } from '@idp/config';
import type { DevTls } from './dev-config';

export interface RouterCertificate {
  /** PEM chain the router serves. */
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
  /** The certificate clients must trust: the generated CA, or the given certificate. */
  trustFile: string;
  /** SHA-256 fingerprint of the certificate to trust (colon-separated hex, as openssl and browsers show it). */
  trustFingerprint256: string;
  /** Subject of the certificate to trust (for finding it again in a trust store). */
  trustSubject: string;
  generated: boolean;
  /** The CA was made by this start (not found, expired or unreadable in TLS_DIR). */
  newCa: boolean;
}

const DAY = 24 * 3600 * 1000;
/** The CA lives long so it is trusted once; the server certificate is reissued at every start. */
const CA_DAYS = 825;
const SERVER_DAYS = 30;
/** A CA closer than this to its end is replaced (with a new trust step) rather than left to expire mid-run. */
const CA_RENEW_BEFORE_DAYS = 30;

export const CA_COMMON_NAME = 'IdP local development CA';

export async function routerCertificate(
  tls: Exclude<DevTls, { kind: 'none' }>,
  now = new Date(),
): Promise<RouterCertificate> {
  if (tls.kind === 'given') {
    const cert = readPem('TLS_CERT_FILE', tls.certFile);
    const key = readPem('TLS_KEY_FILE', tls.keyFile);
    let x509: X509Certificate;
    try {
      x509 = new X509Certificate(cert);
      createPrivateKey(key);
    } catch (err) {
      throw new ConfigError([
        `TLS_CERT_FILE / TLS_KEY_FILE: not a PEM certificate and private key (${err instanceof Error ? err.message : String(err)})`,
      ]);
    }
    return {
      cert,
      key,
      certFile: tls.certFile,
      keyFile: tls.keyFile,
      trustFile: tls.certFile,
      trustFingerprint256: x509.fingerprint256,
      trustSubject: x509.subject,
      generated: false,
      newCa: false,
    };
  }
  return issueLoopbackCertificate(tls.dir, tls.hosts, now);
}

/** Reuses the CA in `dir` when it is valid for a while yet (else makes one), then issues a server certificate for `hosts`. */
export async function issueLoopbackCertificate(
  dir: string,
  hosts: string[],
  now = new Date(),
): Promise<RouterCertificate> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = join(dir, 'ca.pem');
  const caKeyFile = join(dir, 'ca-key.pem');
  let ca = readCa(caFile, caKeyFile, now);
  const newCa = !ca;
  if (!ca) {
    const made = await generate(
      [
        { name: 'commonName', value: CA_COMMON_NAME },
        { name: 'organizationName', value: 'IdP development (npm start)' },
      ],
      {
        keyType: 'ec',
        curve: 'P-256',
        algorithm: 'sha256',
        notBeforeDate: new Date(now.getTime() - 60_000),
        notAfterDate: new Date(now.getTime() + CA_DAYS * DAY),
        extensions: [
          { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
        ],
      },
    );
    writeSecret(caKeyFile, made.private);
    writeFileSync(caFile, made.cert);
    ca = { cert: made.cert, key: made.private };
  }
  const server = await generate([{ name: 'commonName', value: hosts[0] ?? 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + SERVER_DAYS * DAY),
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: hosts.map((h) => (isIP(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h })),
      },
    ],
  });
  const certFile = join(dir, 'server.pem');
  const keyFile = join(dir, 'server-key.pem');
  const chain = `${server.cert.trim()}\n${ca.cert.trim()}\n`;
  writeSecret(keyFile, server.private);
  writeFileSync(certFile, chain);
  const caX509 = new X509Certificate(ca.cert);
  return {
    cert: chain,
    key: server.private,
    certFile,
    keyFile,
    trustFile: caFile,
    trustFingerprint256: caX509.fingerprint256,
    trustSubject: caX509.subject,
    generated: true,
    newCa,
  };
}

function readCa(certFile: string, keyFile: string, now: Date): { cert: string; key: string } | undefined {
  if (!existsSync(certFile) || !existsSync(keyFile)) return undefined;
  try {
    const cert = readFileSync(certFile, 'utf8');
    const key = readFileSync(keyFile, 'utf8');
    const x509 = new X509Certificate(cert);
    const usable =
      x509.ca &&
      new Date(x509.validTo).getTime() - now.getTime() > CA_RENEW_BEFORE_DAYS * DAY &&
      x509.checkPrivateKey(createPrivateKey(key));
    return usable ? { cert, key } : undefined;
  } catch {
    return undefined;
  }
}

function readPem(key: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`${key}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`]);
  }
}

function writeSecret(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}
