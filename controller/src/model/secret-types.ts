// The model's secret-bearing parts: TLS certificates and client-certificate
// settings (pushed to Lua by SNI), proxy-ssl-secret PEMs and basic/digest
// credentials. Several hold PRIVATE KEYS or password hashes: never log them
// whole. Re-exported by types.ts, the one import of the contract.

import type { ClientVerify } from './access-types.ts';

/** The Secret a certificate came from. */
export interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * A certificate from a valid `kubernetes.io/tls` Secret. Holds the PRIVATE KEY:
 * never log a Certificate or a Model whole; only Lua receives `key`.
 */
export interface Certificate {
  /** `<namespace>/<secret name>`: stable across rotations, so a new PEM under the same id is a dynamic change. */
  readonly id: string;
  readonly secret: SecretRef;
  /** `tls.crt` as found: the PEM chain, leaf first. */
  readonly cert: string;
  /** `tls.key`: the PEM private key matching the leaf. */
  readonly key: string;
  /** DNS names the leaf is valid for (SAN DNS entries, else the CN), lowercased, sorted. */
  readonly names: readonly string[];
  /** Leaf serial number, uppercase hex (for logs and tests). */
  readonly serial: string;
  /** Leaf validity end, ISO 8601; an expired certificate is still served (clients decide) but flagged. */
  readonly notAfter: string;
}

/** One entry of the host → certificate map Lua consults by SNI. */
export interface CertificateHost {
  /** Lowercased host or one-label wildcard (`*.example.com`) as named in `spec.tls[].hosts` or a rule host the certificate covers. */
  readonly host: string;
  /** Certificate.id. */
  readonly certificate: string;
}

/** The dynamic TLS state (blanked by diff's staticPart: changing it never reloads). */
export interface TlsState {
  /** Valid certificates some host uses, sorted by id. */
  readonly certificates: readonly Certificate[];
  /** Host → certificate, sorted by host; a host absent here gets the default certificate. */
  readonly hosts: readonly CertificateHost[];
  /** Certificate.id of --default-ssl-certificate when valid, else null (the self-signed placeholder of nginx.conf). */
  readonly defaultCertificate: string | null;
  /** Client certificates per host (absent = none): pushed to Lua with the certificates (POST /configuration/client-auth). */
  readonly clientAuth?: ClientAuthState;
}

/** The CA bundles and each host's client-certificate settings (model/client-auth.ts). */
export interface ClientAuthState {
  /** CA bundles by id (`namespace/name` of the Secret), sorted by id; `pem` is re-encoded certificate by certificate. */
  readonly cas: readonly { readonly id: string; readonly pem: string }[];
  /** Sorted by host. */
  readonly hosts: readonly ClientAuthHost[];
}

/** One host's client-certificate settings as Lua receives them (lua/resty_ingress/client_auth_api.lua). */
export interface ClientAuthHost {
  readonly host: string;
  /** The CA bundle's id, or null: its Secret is missing or unusable, the host answers 403. */
  readonly ca: string | null;
  readonly verify: ClientVerify;
  readonly depth: number;
  readonly matchCn: string | null;
  readonly errorPage: string | null;
}

/** The JSON Lua receives on POST /configuration/certificates: the FULL set (private keys included, loopback only). */
export interface DynamicCertificates {
  /** Every certificate by id. */
  readonly certificates: readonly { readonly id: string; readonly cert: string; readonly key: string }[];
  /** host → certificate id. */
  readonly hosts: Readonly<Record<string, string>>;
  /** Certificate id for unknown SNI, or null (NGINX's placeholder certificate). */
  readonly defaultCertificate: string | null;
  /** Client certificates (absent = none), POSTed whole to /configuration/client-auth after the certificates. */
  readonly clientAuth?: ClientAuthState;
}

/**
 * A proxy-ssl-secret's PEMs, checked (model/backend-tls.ts). Holds a PRIVATE KEY: never log it
 * whole. At least one of `ca` and `cert` is set; `cert` and `key` come together.
 */
export interface BackendTlsSecret {
  /** `<namespace>/<name>` as the annotation names it. */
  readonly id: string;
  /** ca.crt: the CAs the backend's certificate must chain to, or null. */
  readonly ca: string | null;
  /** tls.crt: the client certificate chain NGINX presents to the backend, or null. */
  readonly cert: string | null;
  /** tls.key: its private key, or null. */
  readonly key: string | null;
  /** 16 hex chars of sha256 over the three: part of the file names, so a rotation changes nginx.conf. */
  readonly fingerprint: string;
}

/** One Ingress's basic/digest users (model/credentials.ts), as Lua receives them. */
export interface CredentialSet {
  /** `<namespace>/<ingress>`: Lua finds the set of a request by words 4 and 5 of its `$resty_route`. */
  readonly id: string;
  readonly type: 'basic' | 'digest';
  /** auth-realm (ingress-nginx's CharsWithSpace: letters, digits, space and `-._~/:`). */
  readonly realm: string;
  /**
   * user → what checks the password: basic, an htpasswd hash ({PLAIN}, {SHA}, {SSHA}, $apr1$, or a
   * crypt(3) setting: $1$ $2a$ $2b$ $2y$ $5$ $6$ $y$ $gy$ $7$, DES); digest, the 32 hex digits of
   * MD5(user:realm:password) for this realm. "" = a user who can never sign in (ingress-nginx: 401).
   */
  readonly users: Readonly<Record<string, string>>;
}

/** The JSON Lua receives on POST /configuration/credentials: the FULL set. */
export interface DynamicCredentials {
  readonly sets: readonly CredentialSet[];
}
