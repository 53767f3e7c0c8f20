{{/*
The controller's command line. Every flag here must be one `resty-ingress
--help` lists: e2e/chart-args.test.ts parses each rendered container's
args with the controller's own parseOptions. The NGINX prefix is an emptyDir
(the root filesystem is read-only).
*/}}
{{- define "resty-ingress.controller.nginxPrefix" -}}/var/lib/resty-ingress{{- end -}}

{{- define "resty-ingress.controller.args" -}}
- --ingress-class={{ .Values.controller.ingressClass }}
- --controller-class={{ .Values.controller.ingressClassResource.controllerValue }}
- --configmap={{ include "resty-ingress.namespace" . }}/{{ include "resty-ingress.controller.fullname" . }}
- --election-id={{ include "resty-ingress.electionID" . }}
{{- if .Values.controller.publishService.enabled }}
- --publish-service={{ include "resty-ingress.publishService" . }}
{{- end }}
{{- with (include "resty-ingress.watchNamespace" .) }}
- --watch-namespace={{ . }}
{{- end }}
{{- if .Values.controller.watchIngressWithoutClass }}
- --watch-ingress-without-class=true
{{- end }}
{{- if .Values.controller.ingressClassByName }}
- --ingress-class-by-name=true
{{- end }}
- --http-port={{ .Values.controller.containerPort.http }}
- --https-port={{ .Values.controller.containerPort.https }}
- --healthz-port={{ .Values.controller.healthzPort }}
- --status-port={{ .Values.controller.statusPort }}
- --nginx-prefix={{ include "resty-ingress.controller.nginxPrefix" . }}
- --shutdown-grace-period={{ .Values.controller.shutdownGracePeriod }}
{{- if .Values.tcp }}
- --tcp-services-configmap={{ include "resty-ingress.streamConfigMapNamespace" (dict "root" . "protocol" "tcp") }}/{{ include "resty-ingress.streamConfigMapName" (dict "root" . "protocol" "tcp") }}
{{- end }}
{{- if .Values.udp }}
- --udp-services-configmap={{ include "resty-ingress.streamConfigMapNamespace" (dict "root" . "protocol" "udp") }}/{{ include "resty-ingress.streamConfigMapName" (dict "root" . "protocol" "udp") }}
{{- end }}
{{- if .Values.controller.admissionWebhooks.enabled }}
{{ include "resty-ingress.admission.args" . }}
{{- end }}
{{- range $key, $value := .Values.controller.extraArgs }}
{{- if eq (toString $value) "" }}
- --{{ $key }}
{{- else }}
- --{{ $key }}={{ $value }}
{{- end }}
{{- end }}
{{- end -}}
