{{/*
The controller pod's ports, worked out once for the flags, the container
ports, the probes and the Services, so they cannot disagree:
- NGINX's http/https: extraArgs http-port/https-port, else
  controller.containerPort, else 8080/8443 (unprivileged), or with
  hostNetwork the node's ports (controller.hostPort.ports, 80/443) since
  there the container port is the node's.
- healthz (also /metrics): extraArgs healthz-port, else controller.healthzPort;
  status: extraArgs status-port, else controller.statusPort.
- privileged: some pod port is below 1024, so the container gets
  NET_BIND_SERVICE (it runs as non-root).
A combination Kubernetes or the controller would refuse fails the install.
*/}}
{{- define "resty-ingress.controller.ports" -}}
{{- $c := .Values.controller -}}
{{- $extra := $c.extraArgs | default dict -}}
{{- $hostNetwork := $c.hostNetwork -}}
{{- $http := index $extra "http-port" | default $c.containerPort.http | default (ternary $c.hostPort.ports.http 8080 $hostNetwork) | int -}}
{{- $https := index $extra "https-port" | default $c.containerPort.https | default (ternary $c.hostPort.ports.https 8443 $hostNetwork) | int -}}
{{- $healthz := index $extra "healthz-port" | default $c.healthzPort | int -}}
{{- $status := index $extra "status-port" | default $c.statusPort | int -}}
{{- $tcp := list -}}
{{- range $port, $_ := .Values.tcp }}{{ $tcp = append $tcp (atoi $port) }}{{ end -}}
{{- $udp := list -}}
{{- range $port, $_ := .Values.udp }}{{ $udp = append $udp (atoi $port) }}{{ end -}}
{{- $named := list (list "http" $http) (list "https" $https) (list "healthz" $healthz) (list "status" $status) -}}
{{- if $c.admissionWebhooks.enabled -}}
{{- $named = append $named (list "webhook" (int $c.admissionWebhooks.port)) -}}
{{- end -}}
{{- $privileged := $c.allowPrivilegedPorts -}}
{{- $seen := dict -}}
{{- range $entry := $named -}}
{{- $name := index $entry 0 -}}{{- $port := index $entry 1 -}}
{{- if or (lt $port 1) (gt $port 65535) -}}
{{- fail (printf "the controller's %s port %v is not a port (1-65535)" $name $port) -}}
{{- end -}}
{{- if hasKey $seen (toString $port) -}}
{{- $hint := ternary " (controller.admissionWebhooks.port: this chart's default is 8444; ingress-nginx's 8443 is NGINX's https port here)" "" (eq $name "webhook") -}}
{{- fail (printf "the controller's %s and %s ports are both %d: give each its own port%s" (index $seen (toString $port)) $name $port $hint) -}}
{{- end -}}
{{- $_ := set $seen (toString $port) $name -}}
{{- if lt $port 1024 }}{{ $privileged = true }}{{ end -}}
{{- end -}}
{{- range $port := $tcp -}}
{{- if hasKey $seen (toString $port) -}}
{{- fail (printf "tcp port %d is the controller's %s port: use another port" $port (index $seen (toString $port))) -}}
{{- end -}}
{{- if lt $port 1024 }}{{ $privileged = true }}{{ end -}}
{{- end -}}
{{- range $port := $udp -}}
{{- if lt $port 1024 }}{{ $privileged = true }}{{ end -}}
{{- end -}}
{{- $hostPorts := dict -}}
{{- if $c.hostPort.enabled -}}
{{- if $hostNetwork -}}
{{- /* Kubernetes: with hostNetwork a hostPort must equal its containerPort. */ -}}
{{- range $name := list "http" "https" -}}
{{- $asked := index $c.hostPort.ports $name | int -}}
{{- $port := ternary $http $https (eq $name "http") -}}
{{- if ne $asked $port -}}
{{- fail (printf "with hostNetwork NGINX's %s port is the node's: controller.hostPort.ports.%s (%d) must equal the container port (%d); set controller.containerPort.%s to %d or drop one of them" $name $name $asked $port $name $asked) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $hostPorts = dict "http" (int $c.hostPort.ports.http) "https" (int $c.hostPort.ports.https) -}}
{{- end -}}
{{- $metricsPort := $c.metrics.port | default $healthz | int -}}
{{- if ne $metricsPort $healthz -}}
{{- fail (printf "controller.metrics.port (%d) must equal the healthz port (%d): the controller serves /metrics on its healthz port; set controller.healthzPort instead" $metricsPort $healthz) -}}
{{- end -}}
{{- dict "http" $http "https" $https "healthz" $healthz "status" $status "privileged" $privileged "hostPorts" $hostPorts | toJson -}}
{{- end -}}

{{/*
A probe: the user's timings with the handler always an httpGet on the
healthz port (ingress-nginx values carry an httpGet of their own; two
handlers in one probe is an invalid pod).
*/}}
{{- define "resty-ingress.probe" -}}
{{- $timing := omit (.probe | default dict) "httpGet" "tcpSocket" "exec" "grpc" -}}
{{- toYaml (merge (dict "httpGet" (dict "path" .path "port" (int .port) "scheme" "HTTP")) $timing) -}}
{{- end -}}

{{/* Lines naming each probe handler of the user's that the chart replaced with a different one. */}}
{{- define "resty-ingress.probeWarnings" -}}
{{- $c := .Values.controller -}}
{{- $ports := include "resty-ingress.controller.ports" . | fromJson -}}
{{- range $name := list "livenessProbe" "readinessProbe" "startupProbe" -}}
{{- $probe := index $c $name | default dict -}}
{{- range $handler := list "tcpSocket" "exec" "grpc" -}}
{{- if hasKey $probe $handler }}
controller.{{ $name }}.{{ $handler }}: replaced by an httpGet on the healthz port {{ int $ports.healthz }}
{{- end -}}
{{- end -}}
{{- with $probe.httpGet -}}
{{- if or (and .port (ne (toString .port) (toString (int $ports.healthz))) (ne (toString .port) $c.metrics.portName)) (and .path (not (has .path (list "/healthz" "/readyz")))) }}
controller.{{ $name }}.httpGet ({{ .path }} on port {{ .port }}): replaced by the healthz port {{ int $ports.healthz }}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
