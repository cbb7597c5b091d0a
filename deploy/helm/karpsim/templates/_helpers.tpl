{{- define "karpsim.labels" -}}
app.kubernetes.io/name: karpsim
{{- end -}}
