{{/*
The controller's command line. Every flag here must be one the controller
accepts (its own, or an ingress-nginx flag it supports or ignores: see
docs/flags.md): e2e/chart-workload.test.ts parses each rendered container's
args with the controller's own parser. The NGINX prefix is an emptyDir
(the root filesystem is read-only). A flag given in controller.extraArgs
replaces the chart's own (one flag, never two: ingress-nginx values often
set healthz-port or default-backend-service there).
*/}}
{{- define "resty-ingress.controller.nginxPrefix" -}}/var/lib/resty-ingress{{- end -}}

{{/* `- --name=value`, unless controller.extraArgs sets the flag itself. */}}
{{- define "resty-ingress.controller.flag" -}}
{{- if not (hasKey (.root.Values.controller.extraArgs | default dict) .name) }}
- --{{ .name }}={{ .value }}
{{- end -}}
{{- end -}}

{{- define "resty-ingress.controller.args" -}}
{{- $root := . -}}
{{- $c := .Values.controller -}}
{{- $ports := include "resty-ingress.controller.ports" . | fromJson -}}
{{- $flags := list
  (list "ingress-class" $c.ingressClass)
  (list "controller-class" $c.ingressClassResource.controllerValue)
  (list "configmap" (printf "%s/%s" (include "resty-ingress.configMapNamespace" .) (include "resty-ingress.controller.fullname" .)))
  (list "election-id" (include "resty-ingress.electionID" .)) -}}
{{- if $c.electionTTL }}{{ $flags = append $flags (list "election-ttl" $c.electionTTL) }}{{ end -}}
{{- if $c.disableLeaderElection }}{{ $flags = append $flags (list "disable-leader-election" "true") }}{{ end -}}
{{- if $c.publishService.enabled }}{{ $flags = append $flags (list "publish-service" (include "resty-ingress.publishService" .)) }}{{ end -}}
{{- with (include "resty-ingress.watchNamespace" .) }}{{ $flags = append $flags (list "watch-namespace" .) }}{{ end -}}
{{- if $c.watchIngressWithoutClass }}{{ $flags = append $flags (list "watch-ingress-without-class" "true") }}{{ end -}}
{{- if $c.ingressClassByName }}{{ $flags = append $flags (list "ingress-class-by-name" "true") }}{{ end -}}
{{- if .Values.defaultBackend.enabled }}{{ $flags = append $flags (list "default-backend-service" (printf "%s/%s" (include "resty-ingress.namespace" .) (include "resty-ingress.defaultBackend.fullname" .))) }}{{ end -}}
{{- $flags = concat $flags (list
  (list "http-port" (int $ports.http))
  (list "https-port" (int $ports.https))
  (list "healthz-port" (int $ports.healthz))
  (list "status-port" (int $ports.status))
  (list "nginx-prefix" (include "resty-ingress.controller.nginxPrefix" .))
  (list "shutdown-grace-period" $c.shutdownGracePeriod)
  (list "enable-metrics" $c.metrics.enabled)) -}}
{{- if .Values.tcp }}{{ $flags = append $flags (list "tcp-services-configmap" (printf "%s/%s" (include "resty-ingress.streamConfigMapNamespace" (dict "root" . "protocol" "tcp")) (include "resty-ingress.streamConfigMapName" (dict "root" . "protocol" "tcp")))) }}{{ end -}}
{{- if .Values.udp }}{{ $flags = append $flags (list "udp-services-configmap" (printf "%s/%s" (include "resty-ingress.streamConfigMapNamespace" (dict "root" . "protocol" "udp")) (include "resty-ingress.streamConfigMapName" (dict "root" . "protocol" "udp")))) }}{{ end -}}
{{- range $flag := $flags }}
{{- include "resty-ingress.controller.flag" (dict "root" $root "name" (index $flag 0) "value" (index $flag 1)) }}
{{- end }}
{{- if .Values.controller.admissionWebhooks.enabled }}
{{ include "resty-ingress.admission.args" . }}
{{- end }}
{{- range $key, $value := .Values.controller.extraArgs }}
{{- if or (kindIs "invalid" $value) (eq (toString $value) "") }}
- --{{ $key }}
{{- else }}
- --{{ $key }}={{ $value }}
{{- end }}
{{- end }}
{{- end -}}
