{{/*
Names, labels and the few computed values the templates share. Object names
stay within 63 characters (DNS label) after the longest suffix we append.
*/}}

{{- define "resty-ingress.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "resty-ingress.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "resty-ingress.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride -}}
{{- end -}}

{{/* <fullname>-controller: the Deployment/DaemonSet, its Services and ConfigMap. */}}
{{- define "resty-ingress.controller.fullname" -}}
{{- printf "%s-%s" (include "resty-ingress.fullname" .) .Values.controller.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "resty-ingress.selectorLabels" -}}
app.kubernetes.io/name: {{ include "resty-ingress.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "resty-ingress.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "resty-ingress.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: {{ include "resty-ingress.name" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "resty-ingress.controller.selectorLabels" -}}
{{ include "resty-ingress.selectorLabels" . }}
app.kubernetes.io/component: controller
{{- end -}}

{{- define "resty-ingress.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "resty-ingress.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "resty-ingress.image" -}}
{{- $image := .image -}}
{{- $tag := default .appVersion $image.tag -}}
{{- if $image.digest -}}
{{- printf "%s/%s@%s" $image.registry $image.image $image.digest -}}
{{- else -}}
{{- printf "%s/%s:%s" $image.registry $image.image $tag -}}
{{- end -}}
{{- end -}}

{{/* The namespace whose namespaced objects the controller watches ("" = all). */}}
{{- define "resty-ingress.watchNamespace" -}}
{{- if .Values.controller.scope.enabled -}}
{{- default (include "resty-ingress.namespace" .) .Values.controller.scope.namespace -}}
{{- end -}}
{{- end -}}

{{- define "resty-ingress.electionID" -}}
{{- default (printf "%s-leader" (include "resty-ingress.fullname" .)) .Values.controller.electionID -}}
{{- end -}}

{{- define "resty-ingress.publishService" -}}
{{- if .Values.controller.publishService.pathOverride -}}
{{- .Values.controller.publishService.pathOverride -}}
{{- else -}}
{{- printf "%s/%s" (include "resty-ingress.namespace" .) (include "resty-ingress.controller.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "resty-ingress.admission.fullname" -}}
{{- printf "%s-admission" (include "resty-ingress.fullname" .) -}}
{{- end -}}

{{/* The Secret holding the webhook's serving certificate (tls.crt, tls.key, ca.crt). */}}
{{- define "resty-ingress.admission.secretName" -}}
{{- printf "%s-admission" (include "resty-ingress.fullname" .) -}}
{{- end -}}
