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

{{/* Namespace of the controller's ConfigMap: the release's (RBAC grants it there only). */}}
{{- define "resty-ingress.configMapNamespace" -}}
{{- $namespace := include "resty-ingress.namespace" . -}}
{{- $asked := .Values.controller.configMapNamespace | default "" -}}
{{- if and $asked (ne $asked $namespace) -}}
{{- fail (printf "controller.configMapNamespace %q: only the release namespace %q is supported" $asked $namespace) -}}
{{- end -}}
{{- $namespace -}}
{{- end -}}

{{- define "resty-ingress.defaultBackend.fullname" -}}
{{- printf "%s-%s" (include "resty-ingress.fullname" .) .Values.defaultBackend.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "resty-ingress.defaultBackend.selectorLabels" -}}
{{ include "resty-ingress.selectorLabels" . }}
app.kubernetes.io/component: default-backend
{{- end -}}

{{- define "resty-ingress.defaultBackend.serviceAccountName" -}}
{{- if .Values.defaultBackend.serviceAccount.create -}}
{{- default (include "resty-ingress.defaultBackend.fullname" .) .Values.defaultBackend.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.defaultBackend.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Pull secrets: the top-level list (ingress-nginx's key) and the component's own. */}}
{{- define "resty-ingress.imagePullSecrets" -}}
{{- $all := concat (.root.Values.imagePullSecrets | default list) (.own | default list) | uniq -}}
{{- with $all }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* registry/image:tag or @digest (kept for the webhook's certgen Jobs). */}}
{{- define "resty-ingress.image" -}}
{{- include "resty-ingress.imageRef" . -}}
{{- end -}}
