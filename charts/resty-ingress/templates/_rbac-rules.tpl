{{/*
The controller's permissions, least privilege (e2e/chart-rbac.test.ts
checks the exact set): read what it watches, its own ConfigMap by name,
write only Ingress status and Events, and keep its leader-election Lease in
its own namespace. Nothing reads Namespaces.
*/}}

{{/*
Namespaced kinds the controller lists and watches as whole collections, plus
its two writes: Ingress status (a merge patch of loadBalancer.ingress, so
`patch` on the status subresource only) and Events.
*/}}
{{- define "resty-ingress.rbac.namespacedRules" -}}
- apiGroups: [""]
  resources: [secrets, services]
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
{{ include "resty-ingress.rbac.eventRules" . }}
{{- end -}}

{{/* Events: create, then patch the count on repeats. */}}
{{- define "resty-ingress.rbac.eventRules" -}}
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end -}}

{{/*
IngressClasses are cluster-scoped, so they stay in a ClusterRole even with
controller.scope: read-only, and all of them, because which classes are ours
is only known by reading their spec.controller. Namespaces are never read.
*/}}
{{- define "resty-ingress.rbac.clusterRules" -}}
- apiGroups: [networking.k8s.io]
  resources: [ingressclasses]
  verbs: [list, watch]
{{- end -}}

{{/* Names of the ConfigMaps the controller reads, in the release namespace (--configmap, and the TCP/UDP services ones when set). */}}
{{- define "resty-ingress.rbac.configMapNames" -}}
{{- $names := list (include "resty-ingress.controller.fullname" .) -}}
{{- range $protocol := list "tcp" "udp" }}
{{- if index $.Values $protocol }}
{{- $names = append $names (include "resty-ingress.streamConfigMapName" (dict "root" $ "protocol" $protocol)) -}}
{{- end }}
{{- end }}
{{- $names | toJson -}}
{{- end -}}

{{/*
The controller's ConfigMaps, by name only. It lists and watches each with
the field selector metadata.name=<name>; Kubernetes authorizes such a
list/watch as a request for that one object (since 1.11), so resourceNames
restrict it. A list/watch of any other ConfigMap, or of all of them, is
refused. No get: the controller never reads a ConfigMap that way.
*/}}
{{- define "resty-ingress.rbac.configMapRules" -}}
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: {{ include "resty-ingress.rbac.configMapNames" . }}
  verbs: [list, watch]
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
