//go:build goexperiment.jsonv2

package manifests

import (
	jsonv2 "encoding/json/v2"

	corev1 "k8s.io/api/core/v1"
)

func init() {
	itemDecoders = append(itemDecoders,
		struct {
			name   string
			decode func(item []byte) error
		}{"encoding-json-v2", func(item []byte) error { return jsonv2.Unmarshal(item, new(corev1.Pod)) }},
		struct {
			name   string
			decode func(item []byte) error
		}{"lean+encoding-json-v2", func(item []byte) error {
			lean, _, _, _ := leanJSON(item)
			return jsonv2.Unmarshal(lean, new(corev1.Pod))
		}},
	)
}
