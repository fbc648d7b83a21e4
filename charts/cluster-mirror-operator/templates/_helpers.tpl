{{- define "cmo.name" -}}cluster-mirror-operator{{- end -}}
{{- define "cmo.fullname" -}}{{ .Release.Name | trunc 40 | trimSuffix "-" }}-cluster-mirror-operator{{- end -}}
{{- define "cmo.labels" -}}
app.kubernetes.io/name: {{ include "cmo.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
{{- define "cmo.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cmo.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
{{- /* The image the build produces: <repository>:<appVersion> unless a tag is given. */ -}}
{{- define "cmo.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- /* CMO_WATCH_NAMESPACES: empty means every namespace to the operator (watchAllNamespaces). */ -}}
{{- define "cmo.watchNamespaces" -}}
{{- if .Values.watchAllNamespaces -}}
{{- if .Values.watchNamespaces -}}
{{- fail "watchAllNamespaces=true and watchNamespaces are exclusive: set watchNamespaces to [] to watch every namespace, or watchAllNamespaces=false to watch only the listed ones" -}}
{{- end -}}
{{- else if .Values.watchNamespaces }}{{ join "," .Values.watchNamespaces }}{{ else }}{{ .Release.Namespace }}{{ end -}}
{{- end -}}
{{- /* extraEnv must not set what the chart sets from other values (a duplicate env var is silently last-wins). */ -}}
{{- define "cmo.extraEnv" -}}
{{- $owned := dict "CMO_WATCH_NAMESPACES" "watchNamespaces / watchAllNamespaces" "CMO_LEASE_NAMESPACE" "the release namespace (leader election)" "CMO_POD_NAME" "the pod name" "CMO_LOG_LEVEL" "logLevel (in the logging ConfigMap)" "CMO_LOG_FORMAT" "logFormat" "CMO_LOG_LEVELS_FILE" "logLevel and logLevels (the logging ConfigMap)" "CMO_METRICS_PORT" "metrics.port" "CMO_HEALTH_PORT" "health.port" -}}
{{- range .Values.extraEnv -}}
{{- if hasKey $owned .name -}}
{{- fail (printf "extraEnv sets %s, which the chart sets from %s: set that value instead and remove %s from extraEnv" .name (get $owned .name) .name) -}}
{{- end -}}
{{- end -}}
{{- with .Values.extraEnv }}{{ toYaml . }}{{ end -}}
{{- end -}}
