// A throwaway PKI for the TLS tests, made with node:crypto alone: node can sign but not build
// X.509 certificates, so this writes their DER by hand (RFC 5280, the few fields TLS checks).
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestPki {
  /** The CA certificate, PEM, and a file holding it. */
  ca: string;
  caFile: string;
  /** The server's certificate and key (PEM), for the DNS name given and nothing else. */
  serverCert: string;
  serverKey: string;
  /** A client certificate (CN "ts-client") and its PKCS#8 key, PEM, in files too. */
  clientCert: string;
  clientKey: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** Deletes the files. */
  remove(): void;
}

/** A CA, a server certificate for `serverName` (a DNS name) only, and a client certificate. */
export function makeTestPki(serverName: string): TestPki {
  const caKeys = ecKeys();
  const caName = name("tasklife ts test CA");
  const ca = certificate({
    subject: caName, issuer: caName, publicKey: caKeys.publicKey, signer: caKeys.privateKey,
    extensions: [basicConstraints(true), keyUsage(0x06, 1)], // keyCertSign, cRLSign
  });
  const leaf = (cn: string, usage: "serverAuth" | "clientAuth", dnsNames: string[]) => {
    const keys = ecKeys();
    const extensions = [basicConstraints(false), keyUsage(0x80, 7), extKeyUsage(usage)]; // digitalSignature
    if (dnsNames.length > 0) extensions.push(subjectAltName(dnsNames));
    const cert = certificate({ subject: name(cn), issuer: caName, publicKey: keys.publicKey, signer: caKeys.privateKey, extensions });
    return { cert, key: keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString() };
  };
  const server = leaf(serverName, "serverAuth", [serverName]);
  const client = leaf("ts-client", "clientAuth", []);
  const folder = mkdtempSync(join(tmpdir(), "tasklife-ts-pki-"));
  const write = (file: string, text: string) => {
    const path = join(folder, file);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  return {
    ca, caFile: write("ca.pem", ca),
    serverCert: server.cert, serverKey: server.key,
    clientCert: client.cert, clientKey: client.key,
    clientCertFile: write("client.pem", client.cert), clientKeyFile: write("client.key", client.key),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

function ecKeys(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync("ec", { namedCurve: "P-256" });
}

function certificate(spec: { subject: Buffer; issuer: Buffer; publicKey: KeyObject; signer: KeyObject; extensions: Buffer[] }): string {
  const ecdsaWithSha256 = seq(oid("1.2.840.10045.4.3.2"));
  const now = Date.now();
  const tbs = seq(
    tlv(0xa0, int(Buffer.from([2]))), // v3
    int(randomBytes(8)),
    ecdsaWithSha256,
    spec.issuer,
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    spec.subject,
    spec.publicKey.export({ type: "spki", format: "der" }),
    tlv(0xa3, seq(...spec.extensions)),
  );
  const signature = sign("sha256", tbs, spec.signer); // DER ECDSA-Sig-Value
  const der = seq(tbs, ecdsaWithSha256, tlv(0x03, Buffer.from([0]), signature));
  const base64 = der.toString("base64").replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  return `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`;
}

function name(commonName: string): Buffer {
  return seq(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x0c, Buffer.from(commonName)))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

function basicConstraints(ca: boolean): Buffer {
  return extension("2.5.29.19", true, ca ? seq(tlv(0x01, Buffer.from([0xff]))) : seq());
}

function keyUsage(bits: number, unusedBits: number): Buffer {
  return extension("2.5.29.15", true, tlv(0x03, Buffer.from([unusedBits, bits])));
}

function extKeyUsage(usage: "serverAuth" | "clientAuth"): Buffer {
  return extension("2.5.29.37", false, seq(oid(usage === "serverAuth" ? "1.3.6.1.5.5.7.3.1" : "1.3.6.1.5.5.7.3.2")));
}

function subjectAltName(dnsNames: string[]): Buffer {
  return extension("2.5.29.17", false, seq(...dnsNames.map((dns) => tlv(0x82, Buffer.from(dns)))));
}

function utcTime(date: Date): Buffer {
  // YYMMDDHHMMSSZ, for dates before 2050.
  return tlv(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, "").slice(2, 14) + "Z"));
}

function int(bytes: Buffer): Buffer {
  return tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split(".").map(Number);
  const out = [40 * first! + second!];
  for (let value of rest) {
    const bytes = [value & 0x7f];
    for (value >>= 7; value > 0; value >>= 7) bytes.unshift((value & 0x7f) | 0x80);
    out.push(...bytes);
  }
  return tlv(0x06, Buffer.from(out));
}

function seq(...parts: Buffer[]): Buffer {
  return tlv(0x30, ...parts);
}

function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length: number[] = [];
  if (body.length < 0x80) {
    length.push(body.length);
  } else {
    for (let n = body.length; n > 0; n >>= 8) length.unshift(n & 0xff);
    length.unshift(0x80 | length.length);
  }
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}
