{{- define "nginx.fullname" -}}
{{- printf "%s-nginx" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- define "nginx.labels" -}}
app.kubernetes.io/name: nginx
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}
{{- define "nginx.selectorLabels" -}}
app.kubernetes.io/name: nginx
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
