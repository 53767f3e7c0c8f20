// nginx_ingress_controller_ssl_expire_time_seconds: when each served
// certificate expires, per host, so the usual ingress-nginx alert
// (`ssl_expire_time_seconds < time() + 10*24*3600`) keeps working.
// Labels as ingress-nginx: namespace (the Secret's), class, host,
// secret_name. One difference: ingress-nginx also put `identifier` (issuer
// and serial) on this gauge, which starts a new series at every rotation and
// leaves the old one behind; here it is only on ssl_certificate_info
// (certificate-info.ts), where joins on it find it.

import { Gauge, type Registry } from 'prom-client';
import type { TlsState } from '../model/types.ts';

/** The host label of --default-ssl-certificate: ingress-nginx's catch-all server name. */
export const DEFAULT_CERTIFICATE_HOST = '_';

export interface CertificateExpiryMetric {
  /** The certificates NGINX now serves: every host gets its series, series of hosts or certificates gone are removed. */
  served(tls: TlsState): void;
}

export interface CertificateExpiryOptions {
  readonly registry: Registry;
  /** --ingress-class: the `class` label. */
  readonly ingressClass: string;
}

export function createCertificateExpiryMetric(options: CertificateExpiryOptions): CertificateExpiryMetric {
  const gauge = new Gauge({
    name: 'nginx_ingress_controller_ssl_expire_time_seconds',
    help: 'Number of seconds since 1970 to the SSL Certificate expire. An example to check if this certificate will expire '
      + 'in 10 days is: "nginx_ingress_controller_ssl_expire_time_seconds < (time() + (10 * 24 * 3600))"',
    labelNames: ['namespace', 'class', 'host', 'secret_name'],
    registers: [options.registry],
  });
  return {
    served(tls: TlsState): void {
      const byId = new Map(tls.certificates.map((certificate) => [certificate.id, certificate]));
      const hosts = tls.hosts.map(({ host, certificate }) => ({ host, id: certificate }));
      if (tls.defaultCertificate !== null) hosts.push({ host: DEFAULT_CERTIFICATE_HOST, id: tls.defaultCertificate });
      // Rebuilt whole: synchronous, so no scrape sees it half-done, and removed hosts simply do not return.
      gauge.reset();
      for (const { host, id } of hosts) {
        const certificate = byId.get(id);
        const expires = certificate === undefined ? Number.NaN : Date.parse(certificate.notAfter);
        if (certificate === undefined || Number.isNaN(expires)) continue;
        const labels = { namespace: certificate.secret.namespace, class: options.ingressClass, host, secret_name: certificate.secret.name };
        gauge.set(labels, Math.floor(expires / 1000));
      }
    },
  };
}
