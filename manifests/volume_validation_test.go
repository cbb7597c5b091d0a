package manifests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVolumesAndServicesAreValidatedAsTheAPIServerDoes holds the objects
// that only steer a decision through volumes and default spreading to the
// API server's rules: a PersistentVolume, StorageClass or Service the API
// server would refuse is refused here, naming the object and field, rather
// than read as an unschedulable pod or an unrestricted zone.
func TestVolumesAndServicesAreValidatedAsTheAPIServerDoes(t *testing.T) {
	pv := func(affinity string) string {
		return "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}\n  nodeAffinity: " + affinity + "\n"
	}
	sc := func(rest string) string {
		return "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: gp3}\nprovisioner: ebs.csi.aws.com\n" + rest + "\n"
	}
	csi := func(drivers string) string {
		return "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: node-1}\nspec:\n  drivers: " + drivers + "\n"
	}
	svc := func(selector string) string {
		return "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: prod}\nspec:\n  selector: " + selector + "\n"
	}
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"volume affinity with a bad operator",
			pv("{required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: Bogus, values: [us-east-1a]}]}]}}"),
			`PersistentVolume/pv1: spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator: "Bogus" is not a node selector operator`},
		{"volume affinity without required", pv("{}"),
			"PersistentVolume/pv1: spec.nodeAffinity.required: required"},
		{"volume affinity with no terms", pv("{required: {nodeSelectorTerms: []}}"),
			"PersistentVolume/pv1: spec.nodeAffinity.required.nodeSelectorTerms: required: at least one node selector term"},
		{"volume affinity In without values",
			pv("{required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In}]}]}}"),
			"PersistentVolume/pv1: spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values: required when the operator is In or NotIn"},
		{"storage class topology without values",
			sc("allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: []}]}]"),
			"StorageClass/gp3: allowedTopologies[0].matchLabelExpressions[0].values: required: at least one value"},
		{"storage class topology term without requirements", sc("allowedTopologies: [{matchLabelExpressions: []}]"),
			"StorageClass/gp3: allowedTopologies[0].matchLabelExpressions: required"},
		{"storage class topology key twice",
			sc("allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [a]}, {key: topology.kubernetes.io/zone, values: [b]}]}]"),
			`StorageClass/gp3: allowedTopologies[0].matchLabelExpressions[1].key: duplicate: key "topology.kubernetes.io/zone" appears twice`},
		{"storage class topology value twice",
			sc("allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [a, a]}]}]"),
			`StorageClass/gp3: allowedTopologies[0].matchLabelExpressions[0].values[1]: duplicate: value "a" appears twice`},
		{"storage class topology key with bad syntax",
			sc("allowedTopologies: [{matchLabelExpressions: [{key: 'a b', values: [a]}]}]"),
			`StorageClass/gp3: allowedTopologies[0].matchLabelExpressions[0].key: "a b" is not a valid label key`},
		{"storage class binding mode", sc("volumeBindingMode: Later"),
			`StorageClass/gp3: volumeBindingMode: "Later" is not supported (use Immediate or WaitForFirstConsumer)`},
		{"csi node driver without a name", csi("[{nodeID: i-1}]"),
			"CSINode/node-1: spec.drivers[0].name: required"},
		{"csi node driver name too long", csi("[{name: " + strings.Repeat("a", 64) + ", nodeID: i-1}]"),
			"CSINode/node-1: spec.drivers[0].name: \"" + strings.Repeat("a", 64) + "\": a CSI driver's name is a DNS-1123 subdomain"},
		{"csi node driver twice", csi("[{name: ebs.csi.aws.com, nodeID: i-1}, {name: ebs.csi.aws.com, nodeID: i-1}]"),
			`CSINode/node-1: spec.drivers[1].name: duplicate: driver "ebs.csi.aws.com" appears twice`},
		{"csi node driver without a node ID", csi("[{name: ebs.csi.aws.com}]"),
			"CSINode/node-1: spec.drivers[0].nodeID: required"},
		{"csi node negative count", csi("[{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: -1}}]"),
			"CSINode/node-1: spec.drivers[0].allocatable.count: -1: must be 0 or more"},
		{"service selector value", svc("{app: 'not valid!'}"),
			`Service/prod/web: spec.selector["app"]: "not valid!" is not a valid label value`},
		{"service selector key", svc("{'a/b/c': x}"),
			`Service/prod/web: spec.selector["a/b/c"]: "a/b/c" is not a valid label key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("bad.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), "bad.yaml: "+tc.want)
		})
	}
	for _, ok := range []string{
		pv("{required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}]}]}}"),
		sc("volumeBindingMode: WaitForFirstConsumer\nallowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [us-east-1a, us-east-1b]}]}]"),
		svc("{app: web}"),
		csi("[{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 25}}, {name: efs.csi.aws.com, nodeID: i-1}]"),
	} {
		_, err := Decode("ok.yaml", []byte(ok))
		assert.NoError(t, err, ok)
	}
}
