{{/*
The controller's permissions, least privilege (charts/chart-rbac.test.ts
checks the exact set): read what it watches, write only Ingress status and
Events, and keep its leader-election Lease in its own namespace.
*/}}

{{/* Namespaced kinds the controller lists and watches, plus its two writes. */}}
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
  verbs: [update]
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
