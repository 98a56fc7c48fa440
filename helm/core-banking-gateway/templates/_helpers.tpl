{{/* Names, labels and the environment shared by the chart's templates. */}}

{{- define "cbg.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "cbg.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "cbg.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cbg.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "cbg.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "cbg.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "cbg.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "cbg.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The environment variable that carries config key <section>.<key>: the contract variable when
there is one (docs/contract.md), else GATEWAY__<section>__<key>. Called with (list $section $key).
*/}}
{{- define "cbg.envName" -}}
{{- $contract := dict "server.port" "PORT" "server.adminPort" "ADMIN_PORT" "server.statusPort" "STATUS_PORT" "sandbox.port" "SANDBOX_PORT" "redis.url" "REDIS_URL" "core.url" "CORE_URL" "access.file" "ACCESS_FILE" "log.level" "LOG_LEVEL" }}
{{- $path := printf "%s.%s" (index . 0) (index . 1) }}
{{- if hasKey $contract $path }}
{{- get $contract $path }}
{{- else }}
{{- printf "GATEWAY__%s__%s" (index . 0) (index . 1) }}
{{- end }}
{{- end }}

{{/* Where the Redis CA and the access file are mounted. */}}
{{- define "cbg.redisCaPath" -}}
/etc/core-banking-gateway/redis-ca/{{ .Values.secrets.redisCa.key }}
{{- end }}

{{- define "cbg.auditSigningKeyPath" -}}
/etc/core-banking-gateway/audit-key/{{ .Values.secrets.auditSigningKey.key }}
{{- end }}

{{- define "cbg.accessFilePath" -}}
/etc/core-banking-gateway/access/{{ .Values.accessDocument.key }}
{{- end }}

{{/* Where the TLS Secrets are mounted (whole Secrets, so a rotation's symlink swap is seen). */}}
{{- define "cbg.coreTlsDir" -}}
/etc/core-banking-gateway/core-tls
{{- end }}
{{- define "cbg.serverTlsDir" -}}
/etc/core-banking-gateway/server-tls
{{- end }}
{{- define "cbg.adminTlsDir" -}}
/etc/core-banking-gateway/admin-tls
{{- end }}

{{/*
"true" when config.server.adminHost is not loopback, i.e. the admin port is reachable from outside
the pod (through the admin Service); empty when only `kubectl port-forward` reaches it.
*/}}
{{- define "cbg.adminExposed" -}}
{{- $host := toString .Values.config.server.adminHost }}
{{- if not (or (hasPrefix "127." $host) (eq $host "::1") (eq $host "localhost")) }}true{{ end }}
{{- end }}

{{/*
Refuses an admin port open to the whole cluster: exposed, it needs the NetworkPolicy with a
non-empty adminFrom, and no peer of adminFrom may admit everyone (an empty namespaceSelector
selects every namespace; an ipBlock of /0 every address). Renders nothing.
*/}}
{{- define "cbg.checkAdminExposure" -}}
{{- $policy := .Values.networkPolicy }}
{{- if and (include "cbg.adminExposed" .) (not (and $policy.enabled $policy.adminFrom)) }}
{{- fail (printf "config.server.adminHost %s exposes the admin port to every pod in the cluster: set networkPolicy.enabled=true and name who may reach it in networkPolicy.adminFrom, or keep adminHost 127.0.0.1 and reach the admin port with kubectl port-forward" (toString .Values.config.server.adminHost)) }}
{{- end }}
{{- range $index, $peer := $policy.adminFrom }}
{{- if hasKey $peer "namespaceSelector" }}
{{- $selector := $peer.namespaceSelector | default dict }}
{{- if not (or $selector.matchLabels $selector.matchExpressions) }}
{{- fail (printf "networkPolicy.adminFrom[%d]: an empty namespaceSelector admits every namespace; name the namespace in matchLabels" $index) }}
{{- end }}
{{- end }}
{{- if hasKey $peer "ipBlock" }}
{{- if hasSuffix "/0" (toString ($peer.ipBlock | default dict).cidr) }}
{{- fail (printf "networkPolicy.adminFrom[%d]: ipBlock %s admits every address" $index (toString $peer.ipBlock.cidr)) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Refuses single sign-on that cannot work: an admin.oidc.issuer without the clientId and
redirectUrl the provider needs, or without a group for any role (no one could sign in), so the
release fails at install rather than every pod at start. Renders nothing.
*/}}
{{- define "cbg.checkAdminOidc" -}}
{{- $oidc := .Values.config.admin.oidc }}
{{- if $oidc.issuer }}
{{- range $key := list "clientId" "redirectUrl" }}
{{- if not (get $oidc $key) }}
{{- fail (printf "config.admin.oidc.%s is required when config.admin.oidc.issuer is set (single sign-on to the admin web UI): set it to the value registered at the provider" $key) }}
{{- end }}
{{- end }}
{{- $roles := $oidc.roles | default dict }}
{{- if not (or $roles.owner $roles.approver $roles.operator $roles.viewer) }}
{{- fail "config.admin.oidc.roles: map at least one role (owner, approver, operator, viewer) to a provider group when config.admin.oidc.issuer is set" }}
{{- end }}
{{- end }}
{{- end }}
