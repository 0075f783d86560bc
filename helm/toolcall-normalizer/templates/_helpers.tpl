{{/*
Names and labels, as the prometheus-community charts do: names truncated at 63 characters (DNS label limit).
*/}}
{{- define "toolcall-normalizer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "toolcall-normalizer.fullname" -}}
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

{{- define "toolcall-normalizer.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride }}
{{- end }}

{{- define "toolcall-normalizer.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "toolcall-normalizer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "toolcall-normalizer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "toolcall-normalizer.labels" -}}
helm.sh/chart: {{ include "toolcall-normalizer.chart" . }}
{{ include "toolcall-normalizer.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: worker
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "toolcall-normalizer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "toolcall-normalizer.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "toolcall-normalizer.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end }}

{{/*
A number from values as an integer string. YAML numbers reach templates as float64, which print in
exponent form from 1e6 on (1048576 would become "1.048576e+06" in an environment variable).
*/}}
{{- define "toolcall-normalizer.int" -}}
{{- . | int64 | toString -}}
{{- end }}

{{/*
The transactional id prefix: one transactional producer per INPUT partition, "<prefix>-<topic>-<partition>".
*/}}
{{- define "toolcall-normalizer.groupId" -}}
{{- required "config.groupId is required" .Values.config.groupId -}}
{{- end }}

{{/*
terminationGracePeriodSeconds derived from the drain bound: ceil(SHUTDOWN_TIMEOUT_MS / 1000) plus a margin,
so Kubernetes never SIGKILLs a worker that is still finishing and committing its batch.
*/}}
{{- define "toolcall-normalizer.terminationGracePeriodSeconds" -}}
{{- $shutdownSeconds := div (add (int64 .Values.config.shutdownTimeoutMs) 999) 1000 -}}
{{- add $shutdownSeconds (int64 .Values.terminationGracePeriodMarginSeconds) -}}
{{- end }}

{{/*
Replicas an autoscaler may reach: never more than the input topic's partitions (kafka.inputPartitions).
A consumer group gives each partition to one member; members beyond the partition count would sit idle.
*/}}
{{- define "toolcall-normalizer.maxReplicas" -}}
{{- $partitions := int64 (required "kafka.inputPartitions is required (the input topic's partition count caps autoscaling)" .Values.kafka.inputPartitions) -}}
{{- min (int64 .max) $partitions -}}
{{- end }}

{{/*
The workers' controller: a StatefulSet (stable pod names) for @platformatic/kafka, whose transactional id and group
instance id are per pod; a Deployment for kafkajs, whose transactional ids are per input partition.
*/}}
{{- define "toolcall-normalizer.workloadKind" -}}
{{- if eq .Values.config.kafkaClient "platformatic" -}}StatefulSet{{- else -}}Deployment{{- end -}}
{{- end }}

{{/* Fails rendering on settings that contradict each other. */}}
{{- define "toolcall-normalizer.validate" -}}
{{- if and .Values.keda.enabled .Values.autoscaling.enabled -}}
{{- fail "keda.enabled and autoscaling.enabled are mutually exclusive: KEDA creates its own HorizontalPodAutoscaler for the ScaledObject; enable one of them" -}}
{{- end -}}
{{- if and .Values.kafka.sasl.mechanism (not .Values.kafka.sasl.existingSecret) -}}
{{- fail "kafka.sasl.mechanism is set: kafka.sasl.existingSecret must name the Secret holding the SASL username and password" -}}
{{- end -}}
{{- if eq .Values.kafka.sasl.mechanism "oauthbearer" -}}
{{- if not .Values.kafka.sasl.oauth.tokenUrl -}}
{{- fail "kafka.sasl.mechanism is oauthbearer: set kafka.sasl.oauth.tokenUrl (the OIDC token endpoint)" -}}
{{- end -}}
{{- if not (or .Values.kafka.sasl.oauth.clientId .Values.kafka.sasl.oauth.clientIdKey) -}}
{{- fail "kafka.sasl.mechanism is oauthbearer: set kafka.sasl.oauth.clientId, or clientIdKey to read it from kafka.sasl.existingSecret" -}}
{{- end -}}
{{- if and .Values.keda.enabled .Values.kafka.sasl.oauth.audience -}}
{{- fail "keda.enabled with kafka.sasl.oauth.audience: KEDA's kafka scaler asks its tokens without an audience (it has no such parameter), so the brokers would refuse them; leave audience empty with a client whose tokens carry the brokers' audience by default, or scale with autoscaling (HPA)" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.existingSecret (not (or .Values.kafka.tls.caKey .Values.kafka.tls.certKey)) -}}
{{- fail "kafka.tls.existingSecret is set: name at least kafka.tls.caKey or kafka.tls.certKey" -}}
{{- end -}}
{{- if and .Values.kafka.tls.existingSecret (not .Values.kafka.tls.enabled) -}}
{{- fail "kafka.tls.existingSecret is set but kafka.tls.enabled is false" -}}
{{- end -}}
{{- if and .Values.kafka.tls.enabled (or .Values.kafka.tls.caKey .Values.kafka.tls.certKey .Values.kafka.tls.keyKey) (not .Values.kafka.tls.existingSecret) -}}
{{- fail "kafka.tls.caKey/certKey/keyKey name keys of a Secret: set kafka.tls.existingSecret" -}}
{{- end -}}
{{- if and .Values.kafka.tls.certKey (not .Values.kafka.tls.keyKey) -}}
{{- fail "kafka.tls.certKey (a client certificate) needs kafka.tls.keyKey (its private key)" -}}
{{- end -}}
{{- if .Values.keda.enabled -}}
{{- if gt (int64 .Values.keda.minReplicaCount) (int64 .Values.kafka.inputPartitions) -}}
{{- fail "keda.minReplicaCount is above kafka.inputPartitions: extra workers would own no partition" -}}
{{- end -}}
{{- end -}}
{{- if .Values.autoscaling.enabled -}}
{{- if gt (int64 .Values.autoscaling.minReplicas) (int64 .Values.kafka.inputPartitions) -}}
{{- fail "autoscaling.minReplicas is above kafka.inputPartitions: extra workers would own no partition" -}}
{{- end -}}
{{- end -}}
{{- end }}
