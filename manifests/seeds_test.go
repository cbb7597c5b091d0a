package manifests

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

const seeds = "../testdata/seed-manifests"

func seed(name string) string { return filepath.Join(seeds, name) }

// problems splits the error of Load or Decode into its *Errors.
func problems(t *testing.T, err error) []*Error {
	t.Helper()
	if err == nil {
		return nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "Load joins its errors, got %T", err)
	var out []*Error
	for _, e := range joined.Unwrap() {
		var pe *Error
		require.True(t, errors.As(e, &pe), "every error is an *Error, got %T", e)
		out = append(out, pe)
	}
	return out
}

func errorStrings(t *testing.T, err error) []string {
	var out []string
	for _, e := range problems(t, err) {
		out = append(out, e.Error())
	}
	return out
}

func warningStrings(s *Set) []string {
	var out []string
	for _, w := range s.Warnings {
		out = append(out, w.String())
	}
	return out
}

const missingConsolidateAfter = `spec.disruption.consolidateAfter: not set, so karpsim uses 0s; note that the Kubernetes API server refuses this NodePool ("spec.disruption.consolidateAfter: Required value"): it defaults consolidateAfter only when the whole disruption block is left out`

// TestSeedsOneByOne decodes each seed file on its own. Every v1 object
// validates, except the two NodePools that have no usable nodeClassRef;
// NodePool files alone only lack the EC2NodeClass they reference.
func TestSeedsOneByOne(t *testing.T) {
	cases := []struct {
		file                              string
		nodePools, nodeClasses, workloads int
		errors                            []string
		warnings                          []string
	}{
		{file: "001-ec2nodeclass-default.yaml", nodeClasses: 1},
		{file: "001-gpu-nodeclass-and-nodepool.yaml", nodePools: 1, nodeClasses: 1},
		{file: "001-nodepool-default.yaml", nodePools: 1,
			errors:   []string{`001-nodepool-default.yaml: NodePool/default: spec.template.spec.nodeClassRef.name: EC2NodeClass "default" not found (no EC2NodeClass was given)`},
			warnings: []string{"001-nodepool-default.yaml: NodePool/default: " + missingConsolidateAfter}},
		{file: "001-nodepool-spot-general.yaml", nodePools: 1,
			errors:   []string{`001-nodepool-spot-general.yaml: NodePool/spot-general: spec.template.spec.nodeClassRef.name: EC2NodeClass "default" not found (no EC2NodeClass was given)`},
			warnings: []string{"001-nodepool-spot-general.yaml: NodePool/spot-general: " + missingConsolidateAfter}},
		{file: "003-deployment-inflate.yaml", workloads: 1},
		{file: "003-ec2nodeclass-complete.yaml", nodeClasses: 1},
		{file: "003-full-configuration.yaml", nodePools: 1, nodeClasses: 1},
		{file: "003-nodepool-basic.yaml", nodePools: 1,
			errors: []string{`003-nodepool-basic.yaml: NodePool/default: spec.template.spec.nodeClassRef.name: EC2NodeClass "default" not found (no EC2NodeClass was given)`}},
		{file: "003-nodepool-spot-diverse.yaml", nodePools: 1,
			errors: []string{`003-nodepool-spot-diverse.yaml: NodePool/spot-diverse: spec.template.spec.nodeClassRef.name: required: the name of the EC2NodeClass to use`}},
		{file: "003-nodepool-spot-optimized.yaml", nodePools: 1,
			errors: []string{`003-nodepool-spot-optimized.yaml: NodePool/spot-optimized: spec.template.spec.nodeClassRef: required in karpenter.sh/v1: name the EC2NodeClass to use, e.g. {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}`}},
		{file: "003-nodepools-production-development.yaml", nodePools: 2, errors: []string{
			`003-nodepools-production-development.yaml: NodePool/production: spec.template.spec.nodeClassRef.name: EC2NodeClass "production" not found (no EC2NodeClass was given)`,
			`003-nodepools-production-development.yaml: NodePool/development: spec.template.spec.nodeClassRef.name: EC2NodeClass "development" not found (no EC2NodeClass was given)`}},
		{file: "003-nodepools-spot-first-on-demand-fallback.yaml", nodePools: 2, errors: []string{
			`003-nodepools-spot-first-on-demand-fallback.yaml: NodePool/spot-first: spec.template.spec.nodeClassRef.name: EC2NodeClass "default" not found (no EC2NodeClass was given)`,
			`003-nodepools-spot-first-on-demand-fallback.yaml: NodePool/on-demand-fallback: spec.template.spec.nodeClassRef.name: EC2NodeClass "default" not found (no EC2NodeClass was given)`}},
	}
	files, err := filepath.Glob(filepath.Join(seeds, "*.yaml"))
	require.NoError(t, err)
	require.Len(t, files, len(cases)+1, "every seed file (and the v1beta1 one, tested apart) has a case")
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			s, err := Decode(c.file, mustRead(t, seed(c.file)))
			assert.Equal(t, c.errors, errorStrings(t, err))
			assert.Equal(t, c.warnings, warningStrings(s))
			assert.Len(t, s.NodePools, c.nodePools)
			assert.Len(t, s.EC2NodeClasses, c.nodeClasses)
			assert.Len(t, s.Deployments, c.workloads)
			for _, p := range problems(t, err) {
				if c.file != "003-nodepool-spot-diverse.yaml" && c.file != "003-nodepool-spot-optimized.yaml" {
					assert.ErrorIs(t, p, ErrMissingReference)
				} else {
					assert.ErrorIs(t, p, ErrInvalid)
				}
			}
		})
	}
}

// TestSeedV1Beta1 converts the v1beta1 seed: every change is a warning,
// and the only error is the EC2NodeClass "gpu" that the file does not define.
func TestSeedV1Beta1(t *testing.T) {
	const file = "002-v1beta1-nodepool-and-nodeclass.yaml"
	s, err := Load(seed(file))
	prefix := seed(file) + ": "
	assert.Equal(t, []string{prefix + `NodePool/gpu: spec.template.spec.nodeClassRef.name: EC2NodeClass "gpu" not found (EC2NodeClasses given: default)`}, errorStrings(t, err))
	assert.ErrorIs(t, err, ErrMissingReference)
	conv := func(object, change string) string { return prefix + object + ": converted to v1: " + change }
	assert.Equal(t, []string{
		conv("NodePool/default", "apiVersion: karpenter.sh/v1beta1 → karpenter.sh/v1"),
		conv("NodePool/default", "spec.disruption.consolidationPolicy: WhenUnderutilized → WhenEmptyOrUnderutilized"),
		conv("NodePool/default", "spec.disruption.consolidateAfter: 30s kept: karpenter.sh/v1beta1 refused consolidateAfter with WhenUnderutilized (its conversion would have reset it to 0s), but v1 honours it: nodes now wait 30s after their last pod change before consolidation"),
		conv("NodePool/default", "spec.template.spec.nodeClassRef: {name: default} → {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}"),
		conv("EC2NodeClass/default", "apiVersion: karpenter.k8s.aws/v1beta1 → karpenter.k8s.aws/v1"),
		conv("EC2NodeClass/default", "spec.amiSelectorTerms: none → [{alias: al2@latest}] (v1 requires terms; v1beta1 used the latest AL2 AMI)"),
		conv("EC2NodeClass/default", "spec.amiFamily: AL2 → not set (the alias implies it)"),
		conv("NodePool/gpu", "apiVersion: karpenter.sh/v1beta1 → karpenter.sh/v1"),
		conv("NodePool/gpu", "spec.disruption.consolidationPolicy: WhenUnderutilized → WhenEmptyOrUnderutilized"),
		conv("NodePool/gpu", "spec.disruption.consolidateAfter: not set → 0s: v1 requires it, and v1beta1's WhenUnderutilized consolidated without waiting"),
		conv("NodePool/gpu", "spec.template.spec.nodeClassRef: {name: gpu} → {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}"),
		conv("NodePool/batch", "apiVersion: karpenter.sh/v1beta1 → karpenter.sh/v1"),
		conv("NodePool/batch", "spec.template.spec.nodeClassRef: {name: default} → {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}"),
	}, warningStrings(s))

	require.Len(t, s.NodePools, 3)
	def := s.NodePools[0]
	assert.Equal(t, apis.Disruption{
		ConsolidationPolicy: apis.ConsolidationPolicyWhenEmptyOrUnderutilized,
		ConsolidateAfter:    apis.NewNillableDuration(30 * time.Second),
		Budgets:             []apis.Budget{{Nodes: "10%"}},
	}, def.Spec.Disruption)
	assert.Equal(t, apis.NewNillableDuration(720*time.Hour), def.Spec.Template.Spec.ExpireAfter)
	batch := s.NodePools[2]
	assert.Equal(t, apis.ConsolidationPolicyWhenEmpty, batch.Spec.Disruption.ConsolidationPolicy)
	assert.Equal(t, apis.NewNillableDuration(0), batch.Spec.Disruption.ConsolidateAfter)

	require.Len(t, s.EC2NodeClasses, 1)
	nc := s.EC2NodeClasses[0]
	assert.Equal(t, apis.AMIFamilyAL2, nc.AMIFamily())
	assert.Equal(t, []apis.AMISelectorTerm{{Alias: "al2@latest"}}, nc.Spec.AMISelectorTerms)
	assert.Equal(t, "100Gi", nc.Spec.BlockDeviceMappings[0].EBS.VolumeSize.String())
	require.Len(t, s.Deployments, 1)
	assert.Equal(t, "api-server", s.Deployments[0].Name)
}

// TestSeedsResolveTogether loads NodePool files with the EC2NodeClass
// files they reference.
func TestSeedsResolveTogether(t *testing.T) {
	for _, group := range [][]string{
		{"001-nodepool-default.yaml", "001-ec2nodeclass-default.yaml"},
		{"001-nodepool-spot-general.yaml", "001-nodepool-default.yaml", "001-ec2nodeclass-default.yaml", "001-gpu-nodeclass-and-nodepool.yaml"},
		{"003-nodepool-basic.yaml", "003-ec2nodeclass-complete.yaml", "003-deployment-inflate.yaml"},
		{"003-nodepools-spot-first-on-demand-fallback.yaml", "003-ec2nodeclass-complete.yaml"},
		{"003-full-configuration.yaml"},
	} {
		var paths []string
		for _, f := range group {
			paths = append(paths, seed(f))
		}
		_, err := Load(paths...)
		assert.NoError(t, err, "%v", group)
	}
}

// TestSeedsAllTogether loads the whole folder: names repeat across files.
func TestSeedsAllTogether(t *testing.T) {
	s, err := Load(seeds)
	assert.Equal(t, []string{
		seed("002-v1beta1-nodepool-and-nodeclass.yaml") + `: NodePool/default: metadata.name: another NodePool named "default" is defined at ../testdata/seed-manifests/001-nodepool-default.yaml:1; names must be unique`,
		seed("002-v1beta1-nodepool-and-nodeclass.yaml") + `: NodePool/gpu: metadata.name: another NodePool named "gpu" is defined at ../testdata/seed-manifests/001-gpu-nodeclass-and-nodepool.yaml:25; names must be unique`,
		seed("003-nodepool-basic.yaml") + `: NodePool/default: metadata.name: another NodePool named "default" is defined at ../testdata/seed-manifests/001-nodepool-default.yaml:1; names must be unique`,
		seed("003-nodepools-production-development.yaml") + `: NodePool/production: metadata.name: another NodePool named "production" is defined at ../testdata/seed-manifests/003-full-configuration.yaml:33; names must be unique`,
		seed("002-v1beta1-nodepool-and-nodeclass.yaml") + `: EC2NodeClass/default: metadata.name: another EC2NodeClass named "default" is defined at ../testdata/seed-manifests/001-ec2nodeclass-default.yaml:1; names must be unique`,
		seed("003-ec2nodeclass-complete.yaml") + `: EC2NodeClass/default: metadata.name: another EC2NodeClass named "default" is defined at ../testdata/seed-manifests/001-ec2nodeclass-default.yaml:1; names must be unique`,
		seed("003-nodepools-production-development.yaml") + `: NodePool/development: spec.template.spec.nodeClassRef.name: EC2NodeClass "development" not found (EC2NodeClasses given: default, gpu, default, default, production)`,
		seed("003-nodepool-spot-diverse.yaml") + `: NodePool/spot-diverse: spec.template.spec.nodeClassRef.name: required: the name of the EC2NodeClass to use`,
		seed("003-nodepool-spot-optimized.yaml") + `: NodePool/spot-optimized: spec.template.spec.nodeClassRef: required in karpenter.sh/v1: name the EC2NodeClass to use, e.g. {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}`,
	}, sortedByKind(errorStrings(t, err)))
	assert.Len(t, s.NodePools, 14)
	assert.Len(t, s.EC2NodeClasses, 5)
	assert.Len(t, s.Deployments, 2)
}

func TestSeedDefaults(t *testing.T) {
	s, err := Load(seed("001-nodepool-default.yaml"), seed("001-ec2nodeclass-default.yaml"), seed("003-nodepools-spot-first-on-demand-fallback.yaml"))
	require.NoError(t, err)
	def := s.NodePools[0]
	assert.Equal(t, apis.NewNillableDuration(720*time.Hour), def.Spec.Template.Spec.ExpireAfter, "expireAfter defaults to 720h")
	assert.Equal(t, apis.NewNillableDuration(0), def.Spec.Disruption.ConsolidateAfter)
	assert.Equal(t, []apis.Budget{
		{Nodes: "10%"},
		{Nodes: "5%", Schedule: ptr("0 9 * * MON-FRI"), Duration: &metav1.Duration{Duration: 8 * time.Hour}},
	}, def.Spec.Disruption.Budgets, "budgets given are kept")
	assert.Equal(t, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000"), corev1.ResourceMemory: resource.MustParse("4000Gi")}, def.Spec.Limits)
	assert.Equal(t, apis.NodeSelectorRequirementWithMinValues{Key: apis.LabelInstanceGeneration, Operator: corev1.NodeSelectorOpGt, Values: []string{"2"}}, def.Spec.Template.Spec.Requirements[5])
	assert.Nil(t, def.Spec.Weight)

	spotFirst := s.NodePools[1]
	assert.Equal(t, apis.Disruption{
		ConsolidateAfter:    apis.NewNillableDuration(0),
		ConsolidationPolicy: apis.ConsolidationPolicyWhenEmptyOrUnderutilized,
		Budgets:             []apis.Budget{{Nodes: "10%"}},
	}, spotFirst.Spec.Disruption, "a NodePool without disruption gets the CRD's defaults")
	assert.Equal(t, int32(100), *spotFirst.Spec.Weight)

	nc := s.EC2NodeClasses[0]
	assert.Equal(t, &apis.MetadataOptions{HTTPEndpoint: ptr("enabled"), HTTPProtocolIPv6: ptr("disabled"), HTTPPutResponseHopLimit: ptr(int64(1)), HTTPTokens: ptr("required")}, nc.Spec.MetadataOptions)
	assert.Equal(t, apis.AMIFamilyAL2023, nc.AMIFamily())
	assert.Equal(t, "50Gi", nc.Spec.BlockDeviceMappings[0].EBS.VolumeSize.String())
	src, ok := s.SourceOf(nc)
	require.True(t, ok)
	assert.Equal(t, Source{File: seed("001-ec2nodeclass-default.yaml"), Document: 1, Line: 1}, src)
	src, _ = s.SourceOf(s.NodePools[2])
	assert.Equal(t, Source{File: seed("003-nodepools-spot-first-on-demand-fallback.yaml"), Document: 2, Line: 22}, src)
}

func ptr[T any](v T) *T { return &v }
