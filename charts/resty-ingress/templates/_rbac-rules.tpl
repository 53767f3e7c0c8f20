{{/*
The controller's permissions, least privilege (e2e/chart-rbac.test.ts
checks the exact set): read what it watches, write only Ingress status and
Events, and keep its leader-election Lease in its own namespace.
*/}}

{{/*
Namespaced kinds the controller lists and watches, plus its two writes:
Ingress status (a merge patch of loadBalancer.ingress, so `patch` on the
status subresource only) and Events (create, then patch count on repeats).
*/}}
{{- define "resty-ingress.rbac.namespacedRules" -}}
- apiGroups: [""]
  resources: [configmaps, secrets, services]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
- apiGroups: [networking.k8s.io]
  resources: [ingresses]
  verbs: [list, watch]
- apiGroups: [networking.k8s.io]
  resources: [ingresses/status]
  verbs: [patch]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end -}}

{{/* Cluster-scoped kinds: IngressClasses always; Namespaces only when watching every namespace. */}}
{{- define "resty-ingress.rbac.clusterRules" -}}
- apiGroups: [networking.k8s.io]
  resources: [ingressclasses]
  verbs: [list, watch]
{{- if not .Values.controller.scope.enabled }}
- apiGroups: [""]
  resources: [namespaces]
  verbs: [list, watch]
{{- end }}
{{- end -}}

{{/* Leader election: create the Lease, then get/update only that one by name. */}}
{{- define "resty-ingress.rbac.leaseRules" -}}
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [{{ include "resty-ingress.electionID" . }}]
  verbs: [get, update]
{{- end -}}

{{/* `namespace/name` of the Service whose address goes into Ingress status, split; empty when not published. */}}
{{- define "resty-ingress.publishServiceRef" -}}
{{- if .Values.controller.publishService.enabled -}}
{{- $parts := splitList "/" (include "resty-ingress.publishService" .) -}}
{{- if ne (len $parts) 2 -}}
{{- fail (printf "controller.publishService.pathOverride must be namespace/name, not %q" .Values.controller.publishService.pathOverride) -}}
{{- end -}}
{{- toJson (dict "namespace" (index $parts 0) "name" (index $parts 1)) -}}
{{- end -}}
{{- end -}}

{{/* Status reads the published Service by name (get), outside the informer. */}}
{{- define "resty-ingress.rbac.publishServiceRules" -}}
- apiGroups: [""]
  resources: [services]
  resourceNames: [{{ .name }}]
  verbs: [get]
{{- end -}}
