package instancetypes

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/manifests"
)

// FuzzEC2NodeClass decodes arbitrary manifests and models the instance
// types of every EC2NodeClass that decodes, as `karpsim plan` does: its
// kubelet settings, block device mappings and AMI family are parsed here
// and nowhere else. NewAWS never panics; a refusal wraps
// ErrInvalidAWSOptions and names the EC2NodeClass; a catalog it builds
// leaves no type more allocatable than it has, and is the same twice.
func FuzzEC2NodeClass(f *testing.F) {
	files, err := filepath.Glob("../testdata/seed-manifests/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if bytes.Contains(data, []byte("EC2NodeClass")) {
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: k}\nspec:\n  role: r\n  amiSelectorTerms: [{alias: bottlerocket@latest}]\n  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n  instanceStorePolicy: RAID0\n  kubelet:\n    maxPods: 3\n    podsPerCore: 1\n    kubeReserved: {cpu: 2, memory: 1e-3, ephemeral-storage: 1Gi}\n    systemReserved: {memory: 100Mi, pid: 1k}\n    evictionHard: {memory.available: 99.9%, nodefs.available: 1Ei}\n  blockDeviceMappings:\n  - deviceName: /dev/xvda\n    rootVolume: true\n    ebs: {volumeSize: 1e-30, volumeType: gp3}\n"))
	facts := EmbeddedFacts()
	facts = facts[:min(len(facts), 24)]
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		set, _ := manifests.Decode("fuzz.yaml", data)
		for _, nc := range set.EC2NodeClasses[:min(len(set.EC2NodeClasses), 2)] {
			c, err := NewAWS(facts, AWSOptions{NodeClass: nc})
			if err != nil {
				if !errors.Is(err, ErrInvalidAWSOptions) || !strings.Contains(err.Error(), `EC2NodeClass "`+nc.Name+`"`) {
					t.Fatalf("error %q does not name the EC2NodeClass or wrap ErrInvalidAWSOptions", err)
				}
				continue
			}
			for _, it := range c {
				a := it.Allocatable()
				for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage} {
					if a.Get(name) > it.Capacity.Get(name) {
						t.Fatalf("%s: %s allocatable %d is more than its capacity %d", it.Name, name, a.Get(name), it.Capacity.Get(name))
					}
				}
			}
			again, err := NewAWS(facts, AWSOptions{NodeClass: nc})
			var one, two bytes.Buffer
			if err != nil || WriteJSON(&one, c) != nil || WriteJSON(&two, again) != nil || !bytes.Equal(one.Bytes(), two.Bytes()) {
				t.Fatalf("two catalogs for one EC2NodeClass (%v)", err)
			}
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("took %v", took)
		}
	})
}
