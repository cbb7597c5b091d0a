package snapshot

import (
	"strings"
	"testing"
)

// TestResourceSliceProblemsNameFileObjectAndField: what karpsim cannot read
// of a ResourceSlice is refused with the file, the slice and the field.
func TestResourceSliceProblemsNameFileObjectAndField(t *testing.T) {
	head := `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: bad}
spec:
`
	for _, tc := range []struct{ spec, want string }{
		{"  allNodes: true\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices: [{name: d}]",
			"test.yaml: ResourceSlice/bad: spec.driver: required"},
		{"  driver: x.example.com\n  allNodes: true\n  nodeName: node-a\n  pool: {name: p, generation: 1, resourceSliceCount: 1}",
			"ResourceSlice/bad: spec: exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection is required, got 2"},
		{"  driver: x.example.com\n  allNodes: true\n  pool: {name: p, generation: 1, resourceSliceCount: 0}",
			"ResourceSlice/bad: spec.pool.resourceSliceCount: must be positive, got 0"},
		{"  driver: x.example.com\n  allNodes: true\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices: [{name: d}, {name: d}]",
			`ResourceSlice/bad: spec.devices[1].name: device "d" is named twice in the slice`},
		{"  driver: x.example.com\n  allNodes: true\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices: [{name: d, consumesCounters: [{counterSet: s, counters: {c: {value: \"1\"}}}]}]",
			"ResourceSlice/bad: spec.devices[0].consumesCounters: not modelled by karpsim"},
		{"  driver: x.example.com\n  allNodes: true\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices: [{name: d, attributes: {model: {string: a, int: 1}}}]",
			"ResourceSlice/bad: spec.devices[0].attributes[model]: exactly one of int, bool, string and version is required, got 2"},
		{"  driver: x.example.com\n  nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-a]}]}]}\n  pool: {name: p, generation: 1, resourceSliceCount: 1}",
			"ResourceSlice/bad: spec.nodeSelector.nodeSelectorTerms[0].matchFields: not modelled by karpsim"},
	} {
		set := decode(t, head+tc.spec)
		_, err := FromSet(set, Options{DRA: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.spec, err, tc.want)
		}
		// Without DRA the slices are not read.
		if _, err := FromSet(set, Options{}); err != nil {
			t.Errorf("without DRA: %v", err)
		}
	}
}
