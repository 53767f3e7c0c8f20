{{/*
ingress-nginx values this chart does not support (the chart file
ingress-nginx-unsupported-values.yaml): NOTES.txt names each one the user
set to something other than ingress-nginx's default. The schema accepts
them, so an ingress-nginx values file installs.
*/}}

{{/* JSON of the user's value at the dotted .path, or nothing when absent. */}}
{{- define "resty-ingress.valueAt" -}}
{{- $cur := .root.Values -}}
{{- $found := true -}}
{{- range $segment := splitList "." .path -}}
{{- if and $found (kindIs "map" $cur) (hasKey $cur $segment) -}}
{{- $cur = index $cur $segment -}}
{{- else -}}
{{- $found = false -}}
{{- end -}}
{{- end -}}
{{- if $found }}{{ toJson $cur }}{{ end -}}
{{- end -}}

{{/* Prints "differs" when .user differs from .default in any leaf the user gave. */}}
{{- define "resty-ingress.differs" -}}
{{- if and (kindIs "map" .user) (kindIs "map" .default) -}}
{{- $default := .default -}}
{{- range $key, $value := .user -}}
{{- if hasKey $default $key -}}
{{- include "resty-ingress.differs" (dict "user" $value "default" (index $default $key)) -}}
{{- else if $value -}}
differs
{{- end -}}
{{- end -}}
{{- else if ne (toJson .user) (toJson .default) -}}
differs
{{- end -}}
{{- end -}}

{{/* Lines "<path>: <note>" for each unsupported value the user set (sorted by path). */}}
{{- define "resty-ingress.unsupportedValuesSet" -}}
{{- $root := . -}}
{{- $table := .Files.Get "ingress-nginx-unsupported-values.yaml" | fromYaml -}}
{{- range $path := keys $table | sortAlpha -}}
{{- $entry := index $table $path -}}
{{- with include "resty-ingress.valueAt" (dict "root" $root "path" $path) -}}
{{- if include "resty-ingress.differs" (dict "user" (printf "{\"v\":%s}" . | fromJson).v "default" $entry.default) }}
{{ $path }}: {{ $entry.note }}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Every warning of the install notes, one "- " line each. */}}
{{- define "resty-ingress.installWarnings" -}}
{{- with include "resty-ingress.controller.ingressNginxImage" . }}
- controller.image: {{ . }}, which cannot run resty-ingress: using {{ include "resty-ingress.imageRef" (dict "image" (include "resty-ingress.controller.imageValues" $ | fromJson) "appVersion" $.Chart.AppVersion) }} instead (and its user {{ (include "resty-ingress.controller.defaultImage" $ | fromJson).runAsUser }}); remove controller.image from your values
{{- end }}
{{- range $line := splitList "\n" (include "resty-ingress.probeWarnings" .) }}
{{- with $line }}
- {{ . }}
{{- end }}
{{- end }}
{{- $svc := .Values.controller.service }}
{{- if and $svc.enabled $svc.internal.enabled (not $svc.internal.annotations) }}
- controller.service.internal.enabled: no internal Service is created without controller.service.internal.annotations (they select the internal load balancer)
{{- end }}
{{- $m := .Values.controller.metrics }}
{{- if and (not $m.enabled) (or $m.serviceMonitor.enabled $m.prometheusRule.enabled) }}
- controller.metrics.serviceMonitor/prometheusRule: not created while controller.metrics.enabled is false
{{- end }}
{{- range $line := splitList "\n" (include "resty-ingress.unsupportedValuesSet" .) }}
{{- with $line }}
- {{ . }} (not supported: ignored)
{{- end }}
{{- end }}
{{- end -}}
