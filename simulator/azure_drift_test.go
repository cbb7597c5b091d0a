package simulator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/snapshot"
)

// aksPool is a NodePool of an AKSNodeClass whose status names no image or
// version: the run gives it the provider's initial ones.
const aksPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general-purpose}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements:
      - {key: karpenter.azure.com/sku-family, operator: In, values: [D]}
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata: {name: default}
spec: {imageFamily: Ubuntu}
---
`

// Each change the Azure provider drifts on drifts the nodes launched
// before it, with the provider's reason, and they are replaced; without a
// change nothing drifts.
func TestAzureNodesDriftInASimulation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		step   Step
		reason string
	}{
		{"no change", Step{At: dur(10 * time.Minute), Scale: &ScaleStep{Deployment: "inflate", Replicas: 2}}, ""},
		{"image release", Step{At: dur(10 * time.Minute), ReleaseAMI: &ReleaseAMIStep{ID: "/CommunityGalleries/x/images/2204gen2containerd/versions/2"}}, "ImageDrift"},
		{"Kubernetes version", Step{At: dur(10 * time.Minute), KubernetesVersion: &KubernetesVersionStep{Version: "v1.34.1"}}, "K8sVersionDrift"},
		{"node class edit", Step{At: dur(10 * time.Minute), NodeClass: &NodeClassStep{Manifest: "apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata: {name: default}\nspec: {imageFamily: Ubuntu, osDiskSizeGB: 64}\n"}}, "NodeClassDrift"},
		// Tags are not hashed (the provider updates them in place).
		{"tags only", Step{At: dur(10 * time.Minute), NodeClass: &NodeClassStep{Manifest: "apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata: {name: default}\nspec: {imageFamily: Ubuntu, tags: {team: web}}\n"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, Scenario{Seed: 1, Duration: dur(30 * time.Minute), Inline: aksPool + inflate,
				Steps: []Step{scaleAt(time.Minute, 2), tc.step}})
			drifted, replaced := kinds(r, KindDrifted), kinds(r, KindReplace)
			if tc.reason == "" {
				assert.Empty(t, drifted, timeline(r))
				assert.Len(t, kinds(r, KindLaunch), 1, timeline(r))
				return
			}
			require.Len(t, drifted, 1, timeline(r))
			assert.True(t, strings.HasPrefix(drifted[0].Reason, tc.reason+": "), drifted[0].Reason)
			require.Len(t, replaced, 1, timeline(r))
			assert.Equal(t, "drift", replaced[0].Method)
			assert.Equal(t, drifted[0].Nodes, replaced[0].Nodes)
			assert.Zero(t, r.Final.PendingPods)
			// The replacement was launched from the changed class: it
			// does not drift in turn.
			assert.Len(t, kinds(r, KindLaunch), 2, timeline(r))
		})
	}
}

// An EC2NodeClass holds no Kubernetes version: the step fails, saying to
// release the version's AMI instead, and nothing drifts.
func TestKubernetesVersionStepOnAWSFails(t *testing.T) {
	r := run(t, Scenario{Seed: 1, Duration: dur(20 * time.Minute), Steps: []Step{
		scaleAt(time.Minute, 2),
		{At: dur(5 * time.Minute), KubernetesVersion: &KubernetesVersionStep{Version: "1.34.1"}},
	}})
	failed := kinds(r, KindStepFailed)
	require.Len(t, failed, 1, timeline(r))
	assert.Contains(t, failed[0].Reason, "steps[1]: EC2NodeClass default holds no Kubernetes version")
	assert.Empty(t, kinds(r, KindDrifted), timeline(r))
}

func TestKubernetesVersionStepIsChecked(t *testing.T) {
	for version, want := range map[string]string{
		"":       `kubernetesVersion version "" is not a Kubernetes version`,
		"1.34":   `kubernetesVersion version "1.34" is not a Kubernetes version (major.minor.patch, as 1.33.2)`,
		"latest": `version "latest" is not`,
	} {
		_, err := ParseScenario([]byte("seed: 1\nduration: 1h\nsteps:\n- {at: 1m, kubernetesVersion: {version: \"" + version + "\"}}\n"))
		assert.ErrorContains(t, err, want, version)
		assert.ErrorContains(t, err, "steps[0] (kubernetesVersion)", version)
	}
	sc, err := ParseScenario([]byte("seed: 1\nduration: 1h\nsteps:\n- {at: 1m, kubernetesVersion: {nodeClass: gp, version: v1.33.3}}\n"))
	require.NoError(t, err)
	steps, err := sc.compile(&placer{})
	require.NoError(t, err)
	assert.Equal(t, &kubernetesVersionStep{nodeClass: "gp", version: "1.33.3"}, steps[0].kubernetesVersion)
}

// A step naming a node class the run does not have fails, naming it.
func TestImageStepsNameAMissingClass(t *testing.T) {
	r := run(t, Scenario{Seed: 1, Duration: dur(10 * time.Minute), Inline: aksPool + inflate, Steps: []Step{
		{At: dur(time.Minute), ReleaseAMI: &ReleaseAMIStep{NodeClass: "gpu", ID: "img"}},
		{At: dur(2 * time.Minute), KubernetesVersion: &KubernetesVersionStep{NodeClass: "gpu", Version: "1.34.0"}},
	}})
	failed := kinds(r, KindStepFailed)
	require.Len(t, failed, 2, timeline(r))
	assert.Equal(t, "steps[0]: no node class gpu", failed[0].Reason)
	assert.Equal(t, "steps[1]: no node class gpu", failed[1].Reason)
}

// On Azure a launch that finds no capacity is the provider's allocation
// failure: the size's whole family in that zone, from its vCPU count up,
// is left out for an hour. Two pods that will not share a node, admitted
// to three sizes in eastus-1; Standard_D2als_v6 has no capacity there. The
// first launch falls through to Standard_D4als_v6 (the next override). At
// 10m the second pod's claim leaves the Dalsv6 family out, 2 vCPUs and up,
// and takes Standard_D4as_v6; AWS's cache would have forgotten the one
// offering after 3 minutes and taken Standard_D4als_v6 again.
func TestAzureLaunchFailureBlocksTheFamilyInTheZone(t *testing.T) {
	pool := strings.Replace(aksPool, "      - {key: karpenter.azure.com/sku-family, operator: In, values: [D]}",
		"      - {key: node.kubernetes.io/instance-type, operator: In, values: [Standard_D2als_v6, Standard_D4als_v6, Standard_D4as_v6]}\n"+
			"      - {key: topology.kubernetes.io/zone, operator: In, values: [eastus-1]}", 1)
	apart := strings.Replace(inflate, "      containers:", `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: inflate}}, topologyKey: kubernetes.io/hostname}
      containers:`, 1)
	r := run(t, Scenario{Seed: 1, Duration: dur(15 * time.Minute), Inline: pool + apart,
		Cloud: CloudSpec{Capacity: []CapacityLimit{{InstanceType: "Standard_D2als_v6", Zone: "eastus-1", CapacityType: "on-demand", Count: 0}}},
		Steps: []Step{scaleAt(time.Minute, 1), scaleAt(10*time.Minute, 2)}})
	launched := kinds(r, KindLaunch)
	require.Len(t, launched, 2, timeline(r))
	assert.Equal(t, "Standard_D4als_v6", launched[0].InstanceType, timeline(r))
	assert.Equal(t, "Standard_D4as_v6", launched[1].InstanceType, timeline(r))
	assert.Zero(t, r.Final.PendingPods, timeline(r))
}

// Without a NodePool, --cloud azure runs on the Azure provider's default
// NodePool and AKSNodeClass, whose nodes drift on a new node image too.
func TestAzureDefaultNodeClassDrifts(t *testing.T) {
	sc := Scenario{Seed: 1, Duration: dur(20 * time.Minute), Inline: inflate, Steps: []Step{
		scaleAt(time.Minute, 2),
		{At: dur(5 * time.Minute), ReleaseAMI: &ReleaseAMIStep{ID: "img-2"}},
	}}
	r, err := Run(context.Background(), sc, Config{CheckInvariants: true, Snapshot: snapshot.Options{Cloud: provider.CloudAzure}})
	require.NoError(t, err)
	noViolations(t, r)
	drifted := kinds(r, KindDrifted)
	require.Len(t, drifted, 1, timeline(r))
	assert.Contains(t, drifted[0].Reason, `ImageDrift: image aks-node-image-initial of NodeClaim`)
	assert.Len(t, kinds(r, KindReplace), 1, timeline(r))
}
