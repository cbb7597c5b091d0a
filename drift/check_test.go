package drift

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

var t0 = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

func testInstanceType(t testing.TB, name, arch string, offerings ...instancetypes.Offering) *instancetypes.InstanceType {
	t.Helper()
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:      name,
		Labels:    map[string]string{apis.LabelArch: arch, apis.LabelOS: "linux"},
		Capacity:  resources.New(2000, 8<<30, 29),
		Offerings: offerings,
	})
	require.NoError(t, err)
	return it
}

func testCatalog(t testing.TB) instancetypes.Catalog {
	t.Helper()
	catalog, err := instancetypes.NewCatalog(
		testInstanceType(t, "m5.large", apis.ArchitectureAmd64,
			instancetypes.Offering{Zone: "us-east-1a", CapacityType: apis.CapacityTypeOnDemand, Price: 0.096, Available: true},
			instancetypes.Offering{Zone: "us-east-1a", CapacityType: apis.CapacityTypeSpot, Price: 0.04, Available: true},
			instancetypes.Offering{Zone: "us-east-1a", CapacityType: apis.CapacityTypeReserved, Price: 0, Available: true,
				ReservationID: "cr-1", ReservationCapacity: 1},
			// Unavailable offerings still count: the type is still sold there.
			instancetypes.Offering{Zone: "us-east-1b", CapacityType: apis.CapacityTypeSpot, Price: 0.04},
		),
		testInstanceType(t, "m6g.large", apis.ArchitectureArm64,
			instancetypes.Offering{Zone: "us-east-1a", CapacityType: apis.CapacityTypeOnDemand, Price: 0.077, Available: true},
		),
	)
	require.NoError(t, err)
	return catalog
}

func arch(values ...string) []corev1.NodeSelectorRequirement {
	return []corev1.NodeSelectorRequirement{{Key: apis.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: values}}
}

// testInput is a spot m5.large NodeClaim, two hours old, launched from
// NodePool "default" and EC2NodeClass "default" as they are now: it has not
// drifted.
func testInput(t testing.TB) Input {
	t.Helper()
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: "default"}
	np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
		{Key: apis.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
		{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand", "spot"}},
	}
	np.SetDefaults()

	nc := &apis.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	nc.Spec.AMISelectorTerms = []apis.AMISelectorTerm{{Alias: "al2023@latest"}}
	nc.Spec.Role = "KarpenterNodeRole"
	nc.Status = apis.EC2NodeClassStatus{
		AMIs:                 []apis.AMI{{ID: "ami-arm", Requirements: arch("arm64")}, {ID: "ami-amd", Requirements: arch("amd64")}},
		Subnets:              []apis.Subnet{{ID: "subnet-a", Zone: "us-east-1a"}, {ID: "subnet-b", Zone: "us-east-1b"}},
		SecurityGroups:       []apis.SecurityGroup{{ID: "sg-1"}, {ID: "sg-2"}},
		CapacityReservations: []apis.CapacityReservation{{ID: "cr-1", AvailabilityZone: "us-east-1a", InstanceType: "m5.large"}},
		InstanceProfile:      "KarpenterNodeRole_123",
	}

	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{
		Name:              "default-abc12",
		CreationTimestamp: metav1.NewTime(t0.Add(-2 * time.Hour)),
		Labels: map[string]string{
			apis.LabelNodePool: "default", apis.LabelInstanceType: "m5.large", apis.LabelArch: "amd64",
			apis.LabelOS: "linux", apis.LabelTopologyZone: "us-east-1a", apis.LabelCapacityType: "spot", "team": "a",
		},
		Annotations: map[string]string{AnnotationInstanceProfileName: "KarpenterNodeRole_123"},
	}}
	claim.Status.ProviderID = "aws:///us-east-1a/i-0123456789abcdef0"
	claim.Status.ImageID = "ami-amd"
	claim.Status.Conditions = []metav1.Condition{{Type: "Launched", Status: metav1.ConditionTrue}}
	return Input{
		NodeClaim:     Stamp(claim, np, nc),
		NodePool:      np,
		NodeClass:     nc,
		InstanceTypes: testCatalog(t),
		Instance:      &Instance{SubnetID: "subnet-a", SecurityGroupIDs: []string{"sg-2", "sg-1"}},
		Now:           t0,
	}
}

// Changes that make one check fire, named after the reason they cause.
var (
	changeNodePool     = func(in *Input) { in.NodePool.Spec.Template.ObjectMeta.Labels["team"] = "b" }
	changeRequirements = func(in *Input) {
		in.NodePool.Spec.Template.Spec.Requirements[1].Values = []string{"on-demand"}
	}
	changeInstanceType = func(in *Input) { in.InstanceTypes = in.InstanceTypes[1:] }
	changeProfile      = func(in *Input) { in.NodeClass.Status.InstanceProfile = "KarpenterNodeRole_456" }
	changeNodeClass    = func(in *Input) { in.NodeClass.Spec.Role = "OtherRole" }
	changeAMI          = func(in *Input) { in.NodeClass.Status.AMIs[1].ID = "ami-amd-new" }
	changeSGs          = func(in *Input) { in.Instance.SecurityGroupIDs = []string{"sg-1"} }
	changeSubnet       = func(in *Input) { in.Instance.SubnetID = "subnet-z" }
	changeReservation  = func(in *Input) { in.Instance.CapacityReservationID = "cr-9" }
)

func TestCheckReasons(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Input)
		want   Reason
		detail string
	}{
		{"unchanged", func(*Input) {}, "", ""},
		{"template label", changeNodePool, NodePoolDrifted,
			`karpenter.sh/nodepool-hash 1617844334411263980 on NodeClaim "default-abc12" != 2206156644763247185, the hash of NodePool "default"'s template (version v3)`},
		{"template expireAfter", func(in *Input) {
			in.NodePool.Spec.Template.Spec.ExpireAfter = apis.NewNillableDuration(24 * time.Hour)
		}, NodePoolDrifted, `, the hash of NodePool "default"'s template (version v3)`},
		{"capacity type no longer allowed", changeRequirements, RequirementsDrifted,
			`NodePool "default" spec.template.spec.requirements no longer admit NodeClaim "default-abc12"'s labels`},
		{"required label missing", func(in *Input) {
			in.NodePool.Spec.Template.Spec.Requirements = append(in.NodePool.Spec.Template.Spec.Requirements,
				apis.NodeSelectorRequirementWithMinValues{Key: "example.com/gpu", Operator: corev1.NodeSelectorOpExists})
		}, RequirementsDrifted, `label "example.com/gpu" does not have known values`},
		{"excluded label missing", func(in *Input) {
			in.NodePool.Spec.Template.Spec.Requirements = append(in.NodePool.Spec.Template.Spec.Requirements,
				apis.NodeSelectorRequirementWithMinValues{Key: "example.com/gpu", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a100"}})
		}, "", ""},
		{"instance type gone", changeInstanceType, InstanceTypeNotFound, `instance type m5.large of NodeClaim "default-abc12" is not among NodePool "default"'s 1 instance types`},
		{"empty catalog", func(in *Input) { in.InstanceTypes = instancetypes.Catalog{} }, InstanceTypeNotFound,
			`instance type m5.large of NodeClaim "default-abc12" is not among NodePool "default"'s 0 instance types`},
		{"instance type label gone", func(in *Input) { delete(in.NodeClaim.Labels, apis.LabelInstanceType) },
			InstanceTypeNotFound, `NodeClaim "default-abc12" has no node.kubernetes.io/instance-type label`},
		{"zone no longer offered", func(in *Input) { in.NodeClaim.Labels[apis.LabelTopologyZone] = "us-east-1c" },
			InstanceTypeNotFound, `no offering of m5.large matches NodeClaim "default-abc12"'s zone "us-east-1c" and capacity type "spot" (offerings: us-east-1a/on-demand, us-east-1a/reserved/cr-1, us-east-1a/spot, us-east-1b/spot)`},
		{"unavailable offering still counts", func(in *Input) { in.NodeClaim.Labels[apis.LabelTopologyZone] = "us-east-1b" }, "", ""},
		{"instance profile", changeProfile, InstanceProfileDrift,
			`NodeClaim "default-abc12" launched with instance profile "KarpenterNodeRole_123" (karpenter.k8s.aws/instance-profile-name), EC2NodeClass "default" status.instanceProfile is "KarpenterNodeRole_456"`},
		{"EC2NodeClass role", changeNodeClass, NodeClassDrift, `, the hash of EC2NodeClass "default" (version v5)`},
		{"newer AMI", changeAMI, AMIDrift,
			`image ami-amd of NodeClaim "default-abc12" is not ami-amd-new, the first of EC2NodeClass "default"'s AMIs (ami-arm, ami-amd-new) that suits instance type m5.large`},
		{"earlier AMI for the same arch", func(in *Input) {
			in.NodeClass.Status.AMIs = append([]apis.AMI{{ID: "ami-amd-2", Requirements: arch("amd64")}}, in.NodeClass.Status.AMIs...)
		}, AMIDrift, `is not ami-amd-2, the first`},
		{"no AMI for the arch", func(in *Input) { in.NodeClass.Status.AMIs = in.NodeClass.Status.AMIs[:1] }, AMIDrift,
			`image ami-amd of NodeClaim "default-abc12": none of EC2NodeClass "default"'s AMIs (ami-arm) suits instance type m5.large`},
		{"security group removed", changeSGs, SecurityGroupDrift,
			`instance of NodeClaim "default-abc12" has security groups (sg-1), EC2NodeClass "default" status.securityGroups are (sg-1, sg-2)`},
		{"security group added", func(in *Input) { in.Instance.SecurityGroupIDs = []string{"sg-1", "sg-2", "sg-3"} }, SecurityGroupDrift, "(sg-1, sg-2, sg-3)"},
		{"subnet", changeSubnet, SubnetDrift,
			`instance of NodeClaim "default-abc12" is in subnet "subnet-z", not among EC2NodeClass "default" status.subnets (subnet-a, subnet-b)`},
		{"capacity reservation", changeReservation, CapacityReservationDrift,
			`instance of NodeClaim "default-abc12" runs in capacity reservation "cr-9", not among EC2NodeClass "default" status.capacityReservations (cr-1)`},
		{"known capacity reservation", func(in *Input) { in.Instance.CapacityReservationID = "cr-1" }, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := testInput(t)
			tc.change(&in)
			r := Check(in)
			assert.Equal(t, tc.want, r.Reason, r.String())
			assert.Equal(t, tc.want != "", r.Drifted)
			assert.Contains(t, r.Detail, tc.detail)
		})
	}
}

func TestCheckOrder(t *testing.T) {
	order := []struct {
		reason Reason
		change func(*Input)
	}{
		{NodePoolDrifted, changeNodePool},
		{RequirementsDrifted, changeRequirements},
		{InstanceTypeNotFound, changeInstanceType},
		{InstanceProfileDrift, changeProfile},
		{NodeClassDrift, changeNodeClass},
		{AMIDrift, changeAMI},
		{SecurityGroupDrift, changeSGs},
		{SubnetDrift, changeSubnet},
		{CapacityReservationDrift, changeReservation},
	}
	for i, earlier := range order {
		for _, later := range order[i+1:] {
			t.Run(string(earlier.reason)+" before "+string(later.reason), func(t *testing.T) {
				in := testInput(t)
				later.change(&in)
				earlier.change(&in)
				assert.Equal(t, earlier.reason, Check(in).Reason)
			})
		}
	}
}

func TestCheckSkipsAndStops(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Input)
		detail string
	}{
		{"young claim", func(in *Input) {
			changeInstanceType(in)
			in.NodeClaim.CreationTimestamp = metav1.NewTime(t0.Add(-30 * time.Minute))
		}, `NodeClaim "default-abc12" is 30m old, so InstanceTypeNotFound waits until it is older than 1h`},
		{"exactly an hour old", func(in *Input) {
			changeInstanceType(in)
			in.NodeClaim.CreationTimestamp = metav1.NewTime(t0.Add(-time.Hour))
		}, "is 1h old"},
		{"not launched", func(in *Input) {
			changeNodePool(in)
			in.NodeClaim.Status.Conditions[0].Status = metav1.ConditionFalse
		}, `NodeClaim "default-abc12" has not launched: its Launched condition is False`},
		{"no conditions, no provider ID", func(in *Input) {
			changeNodePool(in)
			in.NodeClaim.Status.Conditions, in.NodeClaim.Status.ProviderID = nil, ""
		}, "has not launched: it has neither a Launched condition nor a status.providerID"},
		{"no instance types", func(in *Input) {
			changeAMI(in)
			in.InstanceTypes = nil
		}, "no instance types given: InstanceTypeNotFound and AMIDrift not checked"},
		{"no NodePool", func(in *Input) { in.NodePool = nil }, `NodeClaim "default-abc12": no NodePool given`},
		{"no NodeClaim", func(in *Input) { in.NodeClaim = nil }, "no NodeClaim given"},
		{"no EC2NodeClass", func(in *Input) { in.NodeClass = nil }, "no EC2NodeClass given: AWS checks skipped"},
		{"claim without nodepool label", func(in *Input) {
			changeNodeClass(in)
			delete(in.NodeClaim.Labels, apis.LabelNodePool)
		}, "has no karpenter.sh/nodepool label"},
		{"no instance", func(in *Input) {
			changeSubnet(in)
			in.Instance = nil
		}, "no EC2 instance given: security-group, subnet and capacity-reservation checks skipped"},
		{"no hash annotations", func(in *Input) {
			changeNodePool(in)
			changeNodeClass(in)
			in.NodeClaim.Annotations = map[string]string{}
		}, "lacks the karpenter.sh/nodepool-hash or karpenter.sh/nodepool-hash-version annotation, so NodePoolDrifted is not checked"},
		{"no AMIs resolved", func(in *Input) {
			changeSGs(in)
			in.NodeClass.Status.AMIs = nil
		}, `Karpenter cannot decide and keeps the claim's drift status: EC2NodeClass "default" status.amis is empty`},
		{"no image ID", func(in *Input) { in.NodeClaim.Status.ImageID = "" }, `NodeClaim "default-abc12" has no status.imageID`},
		{"type unknown to the AMI check", func(in *Input) {
			changeInstanceType(in)
			in.NodeClaim.CreationTimestamp = metav1.NewTime(t0.Add(-10 * time.Minute))
		}, `instance type "m5.large" of NodeClaim "default-abc12" is not in NodePool "default"'s catalog`},
		{"no security groups resolved", func(in *Input) { in.NodeClass.Status.SecurityGroups = nil },
			`EC2NodeClass "default" status.securityGroups is empty`},
		// The AWS provider evaluates subnets before reporting security
		// group drift, and an empty subnet list is an error.
		{"security groups differ, no subnets resolved", func(in *Input) {
			changeSGs(in)
			in.NodeClass.Status.Subnets = nil
		}, `EC2NodeClass "default" status.subnets is empty`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := testInput(t)
			tc.change(&in)
			r := Check(in)
			assert.False(t, r.Drifted, r.String())
			assert.Contains(t, r.Detail, tc.detail)
		})
	}
}

func TestCheckLaunchedWithoutConditions(t *testing.T) {
	in := testInput(t)
	changeNodePool(&in)
	in.NodeClaim.Status.Conditions = nil
	assert.Equal(t, NodePoolDrifted, Check(in).Reason, "a provider ID counts as launched when no condition says otherwise")
}

// A hash-version change makes Karpenter re-stamp the claim, not drift it,
// even when the hash differs.
func TestCheckHashVersionMismatch(t *testing.T) {
	in := testInput(t)
	changeNodePool(&in)
	changeNodeClass(&in)
	in.NodeClaim.Annotations[apis.AnnotationNodePoolHashVersion] = "v2"
	in.NodeClaim.Annotations[apis.AnnotationEC2NodeClassHashVersion] = "v3"
	r := Check(in)
	assert.False(t, r.Drifted, r.String())
	assert.Contains(t, r.Detail, `NodeClaim "default-abc12" has karpenter.sh/nodepool-hash-version v2, current is v3: Karpenter re-stamps its karpenter.sh/nodepool-hash (see Restamp) instead of drifting it`)
	assert.Contains(t, r.Detail, "karpenter.k8s.aws/ec2nodeclass-hash-version v3, current is v5")

	restamped, changed := Restamp(in.NodeClaim, in.NodePool, in.NodeClass)
	require.True(t, changed)
	in.NodeClaim = restamped
	assert.Equal(t, Result{}, Check(in), "after re-stamping, the new hashes are the baseline")
}

func TestCheckNodeLabels(t *testing.T) {
	in := testInput(t)
	in.NodeLabels = map[string]string{}
	for k, v := range in.NodeClaim.Labels {
		in.NodeLabels[k] = v
	}
	in.NodeLabels[apis.LabelArch] = "s390x"
	assert.Equal(t, RequirementsDrifted, Check(in).Reason, "NodeLabels replace the claim's labels")
}

func TestCheckReservedClaimMatchesOnDemandOfferings(t *testing.T) {
	in := testInput(t)
	in.NodeClaim.Labels[apis.LabelCapacityType] = apis.CapacityTypeReserved
	in.NodeClaim.Labels[apis.LabelCapacityReservationID] = "cr-gone"
	in.NodePool.Spec.Template.Spec.Requirements[1].Values = []string{"reserved", "on-demand"}
	assert.Equal(t, Result{}, Check(in), "Karpenter may have demoted the claim to on-demand; the reservation is the provider's business")

	in.NodeClaim.Labels[apis.LabelTopologyZone] = "us-east-1b"
	assert.Equal(t, InstanceTypeNotFound, Check(in).Reason, "no reserved or on-demand m5.large in us-east-1b")
}

func TestCheckDoesNotModifyInput(t *testing.T) {
	for _, change := range []func(*Input){func(*Input) {}, changeNodePool, changeInstanceType, changeAMI, changeSubnet} {
		in := testInput(t)
		change(&in)
		want := copyInput(in)
		Check(in)
		assert.Equal(t, want, in)
	}
}

func copyInput(in Input) Input {
	out := in
	out.NodeClaim = in.NodeClaim.DeepCopy()
	out.NodePool = in.NodePool.DeepCopy()
	out.NodeClass = in.NodeClass.DeepCopy()
	inst := *in.Instance
	out.Instance = &inst
	return out
}

func TestResultString(t *testing.T) {
	assert.Equal(t, "not drifted", Result{}.String())
	assert.Equal(t, "not drifted: why", Result{Detail: "why"}.String())
	assert.Equal(t, "drifted (AMIDrift): what", Result{Drifted: true, Reason: AMIDrift, Detail: "what"}.String())
}
