{{/*
Without cert-manager the controller manages the webhook's certificate itself
(--validating-webhook-secret): it issues a CA and a serving certificate into
the admission Secret, keeps the ValidatingWebhookConfiguration's caBundle,
and renews before expiry. These are the flags and the only grants it needs.
*/}}
{{- define "resty-ingress.admission.selfManaged" -}}
{{- $w := .Values.controller.admissionWebhooks -}}
{{- if and $w.enabled (not $w.certManager.enabled) }}true{{ end -}}
{{- end -}}

{{/* The webhook's Service, whose DNS names the certificate carries. */}}
{{- define "resty-ingress.admission.serviceName" -}}
{{- printf "%s-admission" (include "resty-ingress.controller.fullname" .) -}}
{{- end -}}

{{- define "resty-ingress.admission.args" -}}
{{- $w := .Values.controller.admissionWebhooks -}}
{{- $namespace := include "resty-ingress.namespace" . -}}
- --validating-webhook=:{{ $w.port }}
{{- if include "resty-ingress.admission.selfManaged" . }}
- --validating-webhook-secret={{ $namespace }}/{{ include "resty-ingress.admission.secretName" . }}
- --validating-webhook-configuration={{ include "resty-ingress.admission.fullname" . }}
- --validating-webhook-service={{ $namespace }}/{{ include "resty-ingress.admission.serviceName" . }}
- --validating-webhook-certificate-validity={{ $w.certificateValidity }}
{{- else }}
- --validating-webhook-certificate=/usr/local/certificates/tls.crt
- --validating-webhook-key=/usr/local/certificates/tls.key
{{- end }}
{{- end -}}

{{/*
Release namespace: get and update only the admission Secret, which the chart
creates empty (secret.yaml): no right to create Secrets, which Kubernetes
could not restrict by name.
*/}}
{{- define "resty-ingress.rbac.admissionSecretRules" -}}
- apiGroups: [""]
  resources: [secrets]
  resourceNames: [{{ include "resty-ingress.admission.secretName" . }}]
  verbs: [get, update]
{{- end -}}

{{/* Cluster: get and update the release's own ValidatingWebhookConfiguration (its caBundle). */}}
{{- define "resty-ingress.rbac.admissionWebhookRules" -}}
- apiGroups: [admissionregistration.k8s.io]
  resources: [validatingwebhookconfigurations]
  resourceNames: [{{ include "resty-ingress.admission.fullname" . }}]
  verbs: [get, update]
{{- end -}}
