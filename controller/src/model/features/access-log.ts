// The access log of proxied traffic (ConfigMap only): ingress-nginx's keys for
// its format, JSON escaping and switching it off.

import type { AccessLogSettings } from '../types.ts';
import { DEFAULT_LOG_FORMAT, parseLogFormat } from '../log-format.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';

export const accessLogFeature = defineFeature({
  name: 'accessLog',
  title: 'Access log',
  doc: 'The access log\'s format (ingress-nginx\'s upstreaminfo by default), escape=json, and switching it off.',
  output: { kind: 'global' },
  defaults: { enabled: true, format: DEFAULT_LOG_FORMAT, escapeJson: false },
  keys: [
    field<AccessLogSettings, 'enabled'>('enabled', (raw) => {
      const parsed = parseBoolean(raw);
      return parsed.ok ? { ok: true, value: !parsed.value } : parsed;
    }, { configKey: 'disable-access-log', defaultText: 'false', doc: 'true turns the access log off.' }),
    field<AccessLogSettings, 'format'>('format', parseLogFormat, {
      configKey: 'log-format-upstream', defaultText: 'upstreaminfo', doc: 'The log_format text.',
      difference: 'every $variable must be one NGINX or our nginx.conf defines; no \' or \\ or ;',
    }),
    field<AccessLogSettings, 'escapeJson'>('escapeJson', parseBoolean, { configKey: 'log-format-escape-json', defaultText: 'false', doc: 'escape=json on the log format.' }),
  ],
  proof: ['controller/src/model/features/access-log.test.ts', 'controller/src/render/access-log.test.ts'],
});
