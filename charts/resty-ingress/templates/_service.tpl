{{/*
One controller Service (the external one, or the internal one) from a
service values block: .root, .svc (the block), .name, .annotations, .labels.
Ports map the Service's 80/443 to NGINX's container ports by name.
*/}}
{{- define "resty-ingress.controller.service" -}}
{{- $svc := .svc -}}
{{- $root := .root -}}
{{- if not (has $svc.type (list "LoadBalancer" "NodePort" "ClusterIP")) -}}
{{- fail (printf "controller.service.type must be LoadBalancer, NodePort or ClusterIP, not %q" $svc.type) -}}
{{- end -}}
{{- $ports := include "resty-ingress.controller.ports" $root | fromJson -}}
{{- range $name := list "http" "https" -}}
{{- $target := index $svc.targetPorts $name -}}
{{- if and (not (kindIs "string" $target)) (ne (int $target) (int (index $ports $name))) -}}
{{- fail (printf "controller.service.targetPorts.%s is %v but NGINX listens on %d: use the port name %q (or the container port)" $name $target (int (index $ports $name)) $name) -}}
{{- end -}}
{{- end -}}
{{- $lb := eq $svc.type "LoadBalancer" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .name }}
  namespace: {{ include "resty-ingress.namespace" $root }}
  labels:
    {{- include "resty-ingress.labels" $root | nindent 4 }}
    app.kubernetes.io/component: controller
    {{- with .labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $svc.type }}
  {{- with $svc.clusterIP }}
  clusterIP: {{ . }}
  {{- end }}
  {{- with $svc.clusterIPs }}
  clusterIPs:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $svc.externalIPs }}
  externalIPs:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if $lb }}
  {{- with $svc.loadBalancerIP }}
  loadBalancerIP: {{ . }}
  {{- end }}
  {{- with $svc.loadBalancerSourceRanges }}
  loadBalancerSourceRanges:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $svc.loadBalancerClass }}
  loadBalancerClass: {{ . }}
  {{- end }}
  {{- if ne (toString $svc.allocateLoadBalancerNodePorts) "" }}
  allocateLoadBalancerNodePorts: {{ $svc.allocateLoadBalancerNodePorts }}
  {{- end }}
  {{- end }}
  {{- if and $svc.externalTrafficPolicy (ne $svc.type "ClusterIP") }}
  externalTrafficPolicy: {{ $svc.externalTrafficPolicy }}
  {{- if and $lb $svc.healthCheckNodePort (eq $svc.externalTrafficPolicy "Local") }}
  healthCheckNodePort: {{ $svc.healthCheckNodePort }}
  {{- end }}
  {{- end }}
  {{- with $svc.sessionAffinity }}
  sessionAffinity: {{ . }}
  {{- end }}
  {{- with $svc.trafficDistribution }}
  trafficDistribution: {{ . }}
  {{- end }}
  ipFamilyPolicy: {{ $svc.ipFamilyPolicy }}
  ipFamilies:
    {{- toYaml $svc.ipFamilies | nindent 4 }}
  ports:
    {{- range $name := list "http" "https" }}
    {{- if index $svc (printf "enable%s" (title $name)) }}
    - name: {{ $name }}
      port: {{ index $svc.ports $name }}
      protocol: TCP
      targetPort: {{ index $svc.targetPorts $name }}
      {{- if $svc.appProtocol }}
      appProtocol: {{ $name }}
      {{- end }}
      {{- if and (index $svc.nodePorts $name) (ne $svc.type "ClusterIP") }}
      nodePort: {{ index $svc.nodePorts $name }}
      {{- end }}
    {{- end }}
    {{- end }}
    {{- with include "resty-ingress.streamServicePorts" (dict "root" $root "svc" $svc) | trim }}{{ . | nindent 4 }}{{ end }}
  selector:
    {{- include "resty-ingress.controller.selectorLabels" $root | nindent 4 }}
{{- end -}}
