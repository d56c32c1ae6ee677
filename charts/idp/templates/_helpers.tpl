{{/* Names ------------------------------------------------------------------------------------------------- */}}

{{- define "idp.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "idp.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "<fullname>-<component>", e.g. include "idp.componentName" (list . "oidc") */}}
{{- define "idp.componentName" -}}
{{- $ctx := index . 0 -}}
{{- printf "%s-%s" (include "idp.fullname" $ctx) (index . 1) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The retention CronJob's name is fixed: management addresses it by this name (one release per namespace). */}}
{{- define "idp.retentionCronJobName" -}}nhe-audit-retention{{- end -}}

{{/* Labels ------------------------------------------------------------------------------------------------ */}}

{{- define "idp.selectorLabels" -}}
{{- $ctx := index . 0 -}}
app.kubernetes.io/name: {{ include "idp.name" $ctx }}
app.kubernetes.io/instance: {{ $ctx.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "idp.labels" -}}
{{- $ctx := index . 0 -}}
{{ include "idp.selectorLabels" . }}
helm.sh/chart: {{ printf "%s-%s" $ctx.Chart.Name $ctx.Chart.Version | replace "+" "_" }}
app.kubernetes.io/version: {{ $ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ $ctx.Release.Service }}
app.kubernetes.io/part-of: {{ include "idp.name" $ctx }}
{{- with $ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Pods of the release that may call oidc and management (helm test pods, hook jobs). */}}
{{- define "idp.clientLabel" -}}
{{ include "idp.fullname" . }}-client: "true"
{{- end -}}

{{/* Images ------------------------------------------------------------------------------------------------ */}}

{{/* include "idp.image" (list . "oidcCore") */}}
{{- define "idp.image" -}}
{{- $ctx := index . 0 -}}
{{- $img := index $ctx.Values.image (index . 1) -}}
{{- $tag := $img.tag | default $ctx.Values.image.tag | default $ctx.Chart.AppVersion | toString -}}
{{- $repo := $img.repository -}}
{{- if $ctx.Values.image.registry -}}{{- $repo = printf "%s/%s" (trimSuffix "/" $ctx.Values.image.registry) $repo -}}{{- end -}}
{{- if hasPrefix "sha256:" $tag -}}
{{- printf "%s@%s" $repo $tag -}}
{{- else -}}
{{- printf "%s:%s" $repo $tag -}}
{{- end -}}
{{- end -}}

{{/* Public URL -------------------------------------------------------------------------------------------- */}}

{{- define "idp.publicBaseUrl" -}}
{{- if .Values.publicBaseUrl -}}
{{- trimSuffix "/" .Values.publicBaseUrl -}}
{{- else -}}
{{- printf "%s://%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host -}}
{{- end -}}
{{- end -}}

{{/* Secrets ----------------------------------------------------------------------------------------------- */}}

{{- define "idp.appSecretName" -}}
{{- .Values.secrets.existingSecret | default (include "idp.componentName" (list . "keys")) -}}
{{- end -}}

{{- define "idp.bootstrapSecretName" -}}
{{- .Values.bootstrapAdmin.existingSecret | default (include "idp.componentName" (list . "bootstrap-admin")) -}}
{{- end -}}

{{- define "idp.bootstrapSecretKey" -}}
{{- ternary .Values.bootstrapAdmin.existingSecretKey "client-secret" (ne .Values.bootstrapAdmin.existingSecret "") -}}
{{- end -}}

{{- define "idp.mongodbSecretName" -}}
{{- .Values.mongodb.auth.existingSecret | default (include "idp.componentName" (list . "mongodb")) -}}
{{- end -}}

{{- define "idp.natsSecretName" -}}
{{- .Values.nats.auth.existingSecret | default (include "idp.componentName" (list . "nats")) -}}
{{- end -}}

{{- define "idp.natsSecretKey" -}}
{{- ternary .Values.nats.auth.existingSecretKey "nats-password" (ne .Values.nats.auth.existingSecret "") -}}
{{- end -}}

{{/*
A value kept across upgrades: the key's current value in the live Secret when it exists (lookup), else a new
random one. include "idp.keptSecretValue" (dict "ctx" . "secret" $name "key" "x" "length" 48)
*/}}
{{- define "idp.keptSecretValue" -}}
{{- $live := lookup "v1" "Secret" .ctx.Release.Namespace .secret -}}
{{- $current := "" -}}
{{- if and $live $live.data -}}{{- $current = index $live.data .key | default "" -}}{{- end -}}
{{- if $current -}}{{- $current -}}{{- else -}}{{- randAlphaNum (int .length) | b64enc -}}{{- end -}}
{{- end -}}

{{/* Connections ------------------------------------------------------------------------------------------- */}}

{{- define "idp.mongodbHosts" -}}
{{- if .Values.mongodb.bundled.enabled -}}
{{- printf "%s:%d" (include "idp.componentName" (list . "mongodb")) (int .Values.mongodb.port) -}}
{{- else -}}
{{- .Values.mongodb.hosts -}}
{{- end -}}
{{- end -}}

{{/*
Env of a container connecting to MongoDB as one of the chart's users; MONGODB_URI is composed by Kubernetes from
MONGODB_USERNAME and MONGODB_PASSWORD (dependent environment variables), so the password stays in the Secret.
include "idp.mongodbEnv" (list . "oidc")   (user key: oidc | management | auditWriter | auditRetention)
*/}}
{{- define "idp.mongodbEnv" -}}
{{- $ctx := index . 0 -}}
{{- $user := index . 1 -}}
{{- $m := $ctx.Values.mongodb -}}
{{- $opts := list (printf "authSource=%s" $m.database) -}}
{{- if $m.options -}}{{- $opts = append $opts $m.options -}}{{- end -}}
- name: MONGODB_USERNAME
  value: {{ index $m.auth.usernames $user | quote }}
- name: MONGODB_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "idp.mongodbSecretName" $ctx }}
      key: {{ printf "%s-password" ($user | kebabcase) }}
- name: MONGODB_URI
  value: {{ printf "%s://$(MONGODB_USERNAME):$(MONGODB_PASSWORD)@%s/%s?%s" $m.scheme (include "idp.mongodbHosts" $ctx) $m.database (join "&" $opts) | quote }}
{{- end -}}

{{- define "idp.natsServers" -}}
{{- if .Values.nats.bundled.enabled -}}
{{- printf "nats://%s:%d" (include "idp.componentName" (list . "nats")) (int .Values.nats.port) -}}
{{- else -}}
{{- .Values.nats.url -}}
{{- end -}}
{{- end -}}

{{/* NATS_URL with the credentials in each server URL (nats://user:password@host:port), composed by Kubernetes. */}}
{{- define "idp.natsEnv" -}}
{{- $servers := list -}}
{{- range (splitList "," (include "idp.natsServers" .)) -}}
{{- $s := trim . -}}
{{- if $.Values.nats.auth.enabled -}}
{{- $parts := splitList "://" $s -}}
{{- $s = printf "%s://$(NATS_USER):$(NATS_PASSWORD)@%s" (first $parts) (last $parts) -}}
{{- end -}}
{{- $servers = append $servers $s -}}
{{- end -}}
{{- if .Values.nats.auth.enabled }}
- name: NATS_USER
  value: {{ .Values.nats.auth.username | quote }}
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "idp.natsSecretName" . }}
      key: {{ include "idp.natsSecretKey" . }}
{{- end }}
- name: NATS_URL
  value: {{ join "," $servers | quote }}
{{- end -}}

{{/* Pod spec pieces --------------------------------------------------------------------------------------- */}}

{{- define "idp.podSecurityContext" -}}
{{ toYaml .Values.podSecurityContext }}
{{- end -}}

{{- define "idp.containerSecurityContext" -}}
{{ toYaml .Values.containerSecurityContext }}
{{- end -}}

{{/* include "idp.placement" (list . "oidc") : affinity, topology spread, node selector, tolerations */}}
{{- define "idp.placement" -}}
{{- $ctx := index . 0 -}}
{{- $component := index . 1 -}}
{{- $selector := include "idp.selectorLabels" . | fromYaml -}}
{{- with $ctx.Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $ctx.Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if eq $ctx.Values.podAntiAffinity "hard" }}
affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- toYaml $selector | nindent 12 }}
{{- else if eq $ctx.Values.podAntiAffinity "soft" }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- toYaml $selector | nindent 14 }}
{{- end }}
{{- if $ctx.Values.topologySpread.enabled }}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: {{ $ctx.Values.topologySpread.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        {{- toYaml $selector | nindent 8 }}
  {{- if $ctx.Values.topologySpread.zones }}
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: {{ $ctx.Values.topologySpread.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        {{- toYaml $selector | nindent 8 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* HTTP probes on the services' health routes: /healthz (alive) for liveness and startup, /readyz for readiness. */}}
{{- define "idp.httpProbes" -}}
startupProbe:
  httpGet: { path: /healthz, port: http }
  periodSeconds: 2
  failureThreshold: 30
livenessProbe:
  httpGet: { path: /healthz, port: http }
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet: { path: /readyz, port: http }
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- end -}}

{{/* A writable /tmp on an otherwise read-only root filesystem. */}}
{{- define "idp.tmpVolumeMount" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{- define "idp.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end -}}

{{/* Egress every app pod needs: DNS, MongoDB (and NATS when asked). include "idp.egressBase" (list . true) */}}
{{- define "idp.egressDns" -}}
- to:
    - {{- toYaml .Values.networkPolicy.dnsSelector | nindent 6 }}
  ports:
    - { protocol: UDP, port: 53 }
    - { protocol: TCP, port: 53 }
{{- end -}}

{{- define "idp.egressMongodb" -}}
- ports:
    - { protocol: TCP, port: {{ int .Values.mongodb.port }} }
  {{- if .Values.mongodb.bundled.enabled }}
  to:
    - podSelector:
        matchLabels:
          {{- include "idp.selectorLabels" (list . "mongodb") | nindent 10 }}
  {{- else if .Values.networkPolicy.mongodbPeers }}
  to:
    {{- toYaml .Values.networkPolicy.mongodbPeers | nindent 4 }}
  {{- end }}
{{- end -}}

{{- define "idp.egressNats" -}}
- ports:
    - { protocol: TCP, port: {{ int .Values.nats.port }} }
  {{- if .Values.nats.bundled.enabled }}
  to:
    - podSelector:
        matchLabels:
          {{- include "idp.selectorLabels" (list . "nats") | nindent 10 }}
  {{- else if .Values.networkPolicy.natsPeers }}
  to:
    {{- toYaml .Values.networkPolicy.natsPeers | nindent 4 }}
  {{- end }}
{{- end -}}

{{/* The hook kind of a job that needs a dependency: after install when the dependency is bundled (it does not
exist before), before install/upgrade otherwise (users and stream exist before the services roll out). */}}
{{- define "idp.hookPhase" -}}
{{- if . -}}post-install,post-upgrade{{- else -}}pre-install,pre-upgrade{{- end -}}
{{- end -}}

{{/* include "idp.pdb" (list . "oidc" .Values.oidc.pdb) */}}
{{- define "idp.pdb" -}}
{{- $ctx := index . 0 -}}
{{- $component := index . 1 -}}
{{- $pdb := index . 2 -}}
{{- if $pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "idp.componentName" (list $ctx $component) }}
  labels:
    {{- include "idp.labels" (list $ctx $component) | nindent 4 }}
spec:
  {{- if not (eq (toString $pdb.minAvailable) "") }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "idp.selectorLabels" (list $ctx $component) | nindent 6 }}
{{- end }}
{{- end -}}
