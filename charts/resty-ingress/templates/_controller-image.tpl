{{/*
The controller image. An ingress-nginx controller image cannot run this
controller, and ingress-nginx values files name one (image, digest, v1.x
tag): such an image is replaced by this chart's own, and NOTES.txt says so.
*/}}

{{- define "resty-ingress.controller.defaultImage" -}}
{{- dict "registry" "ghcr.io" "image" "resty-ingress/controller" "tag" "" "digest" "" "repository" "" "pullPolicy" "IfNotPresent" "runAsUser" 1000 "runAsGroup" 1000 | toJson -}}
{{- end -}}

{{/* Why the configured image is ingress-nginx's (empty when it is not). */}}
{{- define "resty-ingress.controller.ingressNginxImage" -}}
{{- $image := .Values.controller.image -}}
{{- $name := default (printf "%s/%s" $image.registry $image.image) $image.repository -}}
{{- $digests := .Files.Lines "ingress-nginx-digests.txt" -}}
{{- if regexMatch "(^|/)ingress-nginx/controller(-chroot)?$" $name -}}
the image {{ $name }} is ingress-nginx's controller
{{- else if and $image.digest (has (toString $image.digest) $digests) -}}
the digest {{ $image.digest }} is an ingress-nginx controller image
{{- else if regexMatch "^v1\\.[0-9]+\\.[0-9]+" (toString $image.tag) -}}
the tag {{ $image.tag }} is an ingress-nginx controller version
{{- end -}}
{{- end -}}

{{/* The image values in effect: the user's, or this chart's when theirs is ingress-nginx's. */}}
{{- define "resty-ingress.controller.imageValues" -}}
{{- if include "resty-ingress.controller.ingressNginxImage" . -}}
{{- $ours := include "resty-ingress.controller.defaultImage" . | fromJson -}}
{{- $_ := set $ours "pullPolicy" .Values.controller.image.pullPolicy -}}
{{- toJson $ours -}}
{{- else -}}
{{- toJson .Values.controller.image -}}
{{- end -}}
{{- end -}}

{{/* registry/image[:tag|@digest] of an image block (controller or default backend). */}}
{{- define "resty-ingress.imageRef" -}}
{{- $image := .image -}}
{{- $name := default (printf "%s/%s" $image.registry $image.image) $image.repository -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $name $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $name (toString (default .appVersion $image.tag)) -}}
{{- end -}}
{{- end -}}
