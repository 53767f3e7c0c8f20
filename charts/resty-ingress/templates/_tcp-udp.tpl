{{/*
TCP/UDP services as ingress-nginx's chart has them: top-level `tcp:` / `udp:`
("<port>": "<namespace>/<service>:<port>[:PROXY][:PROXY]") become the
ConfigMaps <fullname>-tcp / <fullname>-udp in the release namespace, the
flags --tcp-services-configmap / --udp-services-configmap, a container port
and a Service port per entry (named <port>-tcp / <port>-udp, with
portNamePrefix). The controller reads the ConfigMaps by name, so RBAC grants
just them (_rbac-rules.tpl).
*/}}

{{/* `<namespace>/<name>` of the TCP (.protocol "tcp") or UDP services ConfigMap. */}}
{{- define "resty-ingress.streamConfigMapName" -}}
{{- printf "%s-%s" (include "resty-ingress.fullname" .root) .protocol | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The namespace of the ConfigMap: the release's. ingress-nginx's
controller.<tcp|udp>.configMapNamespace pointing elsewhere would need
RBAC in that namespace too: refused until it is supported.
*/}}
{{- define "resty-ingress.streamConfigMapNamespace" -}}
{{- $namespace := include "resty-ingress.namespace" .root -}}
{{- $asked := (index .root.Values.controller .protocol).configMapNamespace | default "" -}}
{{- if and $asked (ne $asked $namespace) -}}
{{- fail (printf "controller.%s.configMapNamespace %q: only the release namespace %q is supported" .protocol $asked $namespace) -}}
{{- end -}}
{{- $namespace -}}
{{- end -}}

{{/* A port's name in the pod and the Service: [<portNamePrefix>-]<port>-<tcp|udp>. */}}
{{- define "resty-ingress.streamPortName" -}}
{{- if .root.Values.portNamePrefix }}{{ .root.Values.portNamePrefix }}-{{ end }}{{ .port }}-{{ .protocol }}
{{- end -}}

{{/* Container ports, one per entry (ports[] of the controller container); a port below 1024 adds NET_BIND_SERVICE (_controller-ports.tpl). */}}
{{- define "resty-ingress.streamContainerPorts" -}}
{{- $root := . -}}
{{- range $protocol := list "tcp" "udp" }}
{{- range $port, $_ := index $root.Values $protocol }}
- name: {{ include "resty-ingress.streamPortName" (dict "root" $root "port" $port "protocol" $protocol) }}
  containerPort: {{ $port }}
  protocol: {{ upper $protocol }}
  {{- if $root.Values.controller.hostPort.enabled }}
  hostPort: {{ $port }}
  {{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Service ports of .svc (the external or internal Service block), one per entry, to the named container port (nodePorts.tcp/udp by port). */}}
{{- define "resty-ingress.streamServicePorts" -}}
{{- $root := .root -}}
{{- $svc := .svc -}}
{{- range $protocol := list "tcp" "udp" }}
{{- range $port, $_ := index $root.Values $protocol }}
- name: {{ include "resty-ingress.streamPortName" (dict "root" $root "port" $port "protocol" $protocol) }}
  port: {{ $port }}
  protocol: {{ upper $protocol }}
  targetPort: {{ include "resty-ingress.streamPortName" (dict "root" $root "port" $port "protocol" $protocol) }}
  {{- $nodePorts := index ($svc.nodePorts | default dict) $protocol | default dict }}
  {{- if and (index $nodePorts $port) (ne $svc.type "ClusterIP") }}
  nodePort: {{ index $nodePorts $port }}
  {{- end }}
{{- end }}
{{- end }}
{{- end -}}
