{{/* Shared pieces of the two certgen hook Jobs (create the Secret, patch the caBundle). */}}
{{- define "resty-ingress.certgen.enabled" -}}
{{- $w := .Values.controller.admissionWebhooks -}}
{{- if and $w.enabled $w.patch.enabled (not $w.certManager.enabled) }}true{{ end -}}
{{- end -}}

{{- define "resty-ingress.certgen.podSpec" -}}
{{- $p := .root.Values.controller.admissionWebhooks.patch -}}
restartPolicy: OnFailure
serviceAccountName: {{ include "resty-ingress.admission.fullname" .root }}
automountServiceAccountToken: true
{{- with $p.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .root.Values.controller.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  runAsNonRoot: true
  runAsUser: {{ $p.runAsUser }}
  runAsGroup: {{ $p.runAsGroup }}
  seccompProfile:
    type: RuntimeDefault
containers:
  - name: {{ .name }}
    image: {{ include "resty-ingress.image" (dict "image" $p.image "appVersion" .root.Chart.AppVersion) | quote }}
    imagePullPolicy: {{ $p.image.pullPolicy }}
    args:
      {{- toYaml .args | nindent 6 }}
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities:
        drop: [ALL]
    {{- with $p.resources }}
    resources:
      {{- toYaml . | nindent 6 }}
    {{- end }}
{{- with $p.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $p.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
