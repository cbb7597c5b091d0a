package apis

import "testing"

func TestNormalizeLabel(t *testing.T) {
	for key, want := range map[string]string{
		"failure-domain.beta.kubernetes.io/zone": LabelTopologyZone,
		"beta.kubernetes.io/instance-type":       LabelInstanceType,
		"beta.kubernetes.io/arch":                LabelArch,
		"topology.ebs.csi.aws.com/zone":          LabelTopologyZone,
		"topology.disk.csi.azure.com/zone":       LabelTopologyZone,
		LabelTopologyZone:                        LabelTopologyZone,
		"team":                                   "team",
	} {
		if got := NormalizeLabel(key); got != want {
			t.Errorf("NormalizeLabel(%q) = %q, want %q", key, got, want)
		}
	}
}
