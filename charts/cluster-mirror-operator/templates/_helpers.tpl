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
{{- define "cmo.watchNamespaces" -}}
{{- if .Values.watchNamespaces }}{{ join "," .Values.watchNamespaces }}{{ else }}{{ .Release.Namespace }}{{ end -}}
{{- end -}}
