package drift

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/mitchellh/hashstructure/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/drift/internal/awsv1"
	"github.com/karpsim/karpsim/drift/internal/karpv1"
)

// The hash versions Karpenter stamps next to the hashes. Karpenter bumps a
// version when a change to the API would change existing hashes; a NodeClaim
// stamped under another version is re-stamped, not drifted (see Restamp).
const (
	// NodePoolHashVersion is sigs.k8s.io/karpenter's NodePoolHashVersion.
	NodePoolHashVersion = "v3"
	// EC2NodeClassHashVersion is the AWS provider's EC2NodeClassHashVersion
	// (v5 since provider v1.12.0, which added the cluster's CA bundle to the
	// hash).
	EC2NodeClassHashVersion = "v5"
)

// AnnotationInstanceProfileName is the annotation the AWS provider stamps on
// a NodeClaim with the instance profile it launched with; a change of the
// EC2NodeClass's resolved instance profile drifts the claim.
const AnnotationInstanceProfileName = apis.AWSGroup + "/instance-profile-name"

// hashOptions are the options both upstream Hash methods pass.
func hashOptions() *hashstructure.HashOptions {
	return &hashstructure.HashOptions{SlicesAsSets: true, IgnoreZeroValue: true, ZeroNil: true}
}

// mustHash hashes a value of one of the mirror types. hashstructure fails
// only on kinds those types do not contain (funcs, channels) or on a
// hash:"string" field that is not a fmt.Stringer, so an error is a bug in
// this package, not a property of the input.
func mustHash(v any) string {
	h, err := hashstructure.Hash(v, hashstructure.FormatV2, hashOptions())
	if err != nil {
		panic(fmt.Sprintf("drift: hashing %T: %v", v, err))
	}
	return strconv.FormatUint(h, 10)
}

// NodePoolHash returns the karpenter.sh/nodepool-hash Karpenter stamps on
// the NodePool and its NodeClaims: a hash of spec.template's labels,
// annotations, taints, startupTaints, nodeClassRef, terminationGracePeriod
// and expireAfter. Requirements, and everything outside the template
// (disruption, budgets, limits, weight), do not count. The pool is hashed as
// the API server stores it: an expireAfter left out counts as its default,
// 720h. A nil pool hashes like an empty template.
func NodePoolHash(np *apis.NodePool) string {
	var template apis.NodeClaimTemplate
	if np != nil {
		template = np.Spec.Template
	}
	return mustHash(mirrorTemplate(template))
}

func mirrorTemplate(t apis.NodeClaimTemplate) karpv1.NodeClaimTemplate {
	spec := t.Spec
	out := karpv1.NodeClaimTemplate{
		ObjectMeta: karpv1.ObjectMeta{Labels: t.ObjectMeta.Labels, Annotations: t.ObjectMeta.Annotations},
		Spec: karpv1.NodeClaimTemplateSpec{
			Taints:                 spec.Taints,
			StartupTaints:          spec.StartupTaints,
			TerminationGracePeriod: spec.TerminationGracePeriod,
			ExpireAfter:            karpv1.NillableDuration{Duration: spec.ExpireAfter.Duration},
		},
	}
	if ref := spec.NodeClassRef; ref != nil {
		out.Spec.NodeClassRef = &karpv1.NodeClassReference{Kind: ref.Kind, Name: ref.Name, Group: ref.Group}
	}
	if !spec.ExpireAfter.IsSet() {
		d := apis.DefaultExpireAfter
		out.Spec.ExpireAfter.Duration = &d
	}
	return out
}

// EC2NodeClassHash returns the karpenter.k8s.aws/ec2nodeclass-hash the AWS
// provider's hash controller computes for an EC2NodeClass: a hash of the
// spec without the subnet, security group, capacity reservation and AMI
// selector terms and without ipPrefixCount, together with the AMI family in
// effect (spec.amiFamily, else the alias's family, else Custom) rather than
// the amiFamily field, and the cluster's CA bundle (the one Karpenter's
// operator reads from its API server configuration; nil, as in a cluster
// without one, hashes like ""). The class is hashed as the API server
// stores it: the metadataOptions fields left out count as their defaults.
// A nil class hashes like an empty one.
func EC2NodeClassHash(nc *apis.EC2NodeClass, caBundle *string) string {
	if nc == nil {
		nc = &apis.EC2NodeClass{}
	}
	bundle := ""
	if caBundle != nil {
		bundle = *caBundle
	}
	return mustHash([]any{mirrorEC2NodeClassSpec(nc.Spec), nc.AMIFamily(), bundle})
}

// NodeClassHash is the hash Karpenter stamps on the NodeClaims of nc and
// compares theirs with: the hash its hash controller stamped on the class
// (karpenter.k8s.aws/ec2nodeclass-hash) when the class carries one at the
// current version, as a class read from a live cluster or its dump does,
// else EC2NodeClassHash without a CA bundle. A stamped hash is the only
// way to know a real cluster's: its CA bundle is in none of the objects.
// Whoever changes a class's spec must update or drop the stamp (see
// RestampNodeClass).
func NodeClassHash(nc *apis.EC2NodeClass) string {
	if nc != nil && nc.Annotations[apis.AnnotationEC2NodeClassHashVersion] == EC2NodeClassHashVersion {
		if h, ok := nc.Annotations[apis.AnnotationEC2NodeClassHash]; ok {
			return h
		}
	}
	return EC2NodeClassHash(nc, nil)
}

// restamp returns a copy of next's annotations with the stamp keys taken
// from prev's when same (the hashed spec did not change), else without
// them; nil when no annotation is left.
func restamp(prev, next map[string]string, same bool, keys ...string) map[string]string {
	out := maps.Clone(next)
	for _, key := range keys {
		delete(out, key)
		if v, ok := prev[key]; ok && same {
			if out == nil {
				out = map[string]string{}
			}
			out[key] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// RestampNodeClass returns next as the AWS provider's hash controller
// leaves it when an EC2NodeClass's spec changes from prev to next: the
// class's stamped hash carries over from prev when the hashed part of the
// spec did not change (so a change of subnet or AMI selectors, which the
// hash ignores, drifts nothing), and is dropped otherwise, so that the
// hash is computed from the new spec. Without prev (a class new to the
// cluster) next keeps its own stamp. next itself is not modified.
func RestampNodeClass(prev, next *apis.EC2NodeClass) *apis.EC2NodeClass {
	if next == nil {
		return nil
	}
	out := next.DeepCopy()
	if prev == nil {
		return out
	}
	out.Annotations = restamp(prev.Annotations, out.Annotations, EC2NodeClassHash(prev, nil) == EC2NodeClassHash(next, nil),
		apis.AnnotationEC2NodeClassHash, apis.AnnotationEC2NodeClassHashVersion)
	return out
}

func mirrorEC2NodeClassSpec(s apis.EC2NodeClassSpec) awsv1.EC2NodeClassSpec {
	out := awsv1.EC2NodeClassSpec{
		AssociatePublicIPAddress: s.AssociatePublicIPAddress,
		UserData:                 s.UserData,
		Role:                     s.Role,
		InstanceProfile:          s.InstanceProfile,
		Tags:                     s.Tags,
		Kubelet:                  mirrorKubelet(s.Kubelet),
		BlockDeviceMappings:      mirrorBlockDeviceMappings(s.BlockDeviceMappings),
		DetailedMonitoring:       s.DetailedMonitoring,
		MetadataOptions:          mirrorMetadataOptions(s.MetadataOptions),
		Context:                  s.Context,
	}
	if p := s.InstanceStorePolicy; p != nil {
		policy := awsv1.InstanceStorePolicy(*p)
		out.InstanceStorePolicy = &policy
	}
	mirrorLaunchSettings(s, &out)
	return out
}

// mirrorLaunchSettings copies the placement group, network interface,
// connection tracking and CPU settings, all hashed upstream.
func mirrorLaunchSettings(s apis.EC2NodeClassSpec, out *awsv1.EC2NodeClassSpec) {
	if pg := s.PlacementGroupSelector; pg != nil {
		out.PlacementGroupSelector = &awsv1.PlacementGroupSelector{Name: pg.Name, ID: pg.ID}
	}
	if s.NetworkInterfaces != nil {
		out.NetworkInterfaces = make([]*awsv1.NetworkInterface, len(s.NetworkInterfaces))
		for i, ni := range s.NetworkInterfaces {
			if ni != nil {
				out.NetworkInterfaces[i] = &awsv1.NetworkInterface{NetworkCardIndex: ni.NetworkCardIndex,
					DeviceIndex: ni.DeviceIndex, InterfaceType: awsv1.InterfaceType(ni.InterfaceType)}
			}
		}
	}
	if ct := s.ConnectionTracking; ct != nil {
		out.ConnectionTracking = &awsv1.ConnectionTracking{TCPEstablishedTimeout: ct.TCPEstablishedTimeout,
			UDPStreamTimeout: ct.UDPStreamTimeout, UDPTimeout: ct.UDPTimeout}
	}
	if o := s.CPUOptions; o != nil {
		out.CPUOptions = &awsv1.CPUOptions{NestedVirtualization: o.NestedVirtualization}
	}
	if o := s.EnclaveOptions; o != nil {
		out.EnclaveOptions = &awsv1.EnclaveOptions{Enabled: o.Enabled != nil && *o.Enabled}
	}
}

func mirrorKubelet(k *apis.KubeletConfiguration) *awsv1.KubeletConfiguration {
	if k == nil {
		return nil
	}
	// The mirrored type predates maxPods expressions: a whole number hashes
	// as it always did, and an expression not at all.
	var maxPods *int32
	if k.MaxPods != nil && k.MaxPods.Type == intstr.Int {
		maxPods = &k.MaxPods.IntVal
	}
	return &awsv1.KubeletConfiguration{
		ClusterDNS:                  k.ClusterDNS,
		MaxPods:                     maxPods,
		PodsPerCore:                 k.PodsPerCore,
		SystemReserved:              k.SystemReserved,
		KubeReserved:                k.KubeReserved,
		EvictionHard:                k.EvictionHard,
		EvictionSoft:                k.EvictionSoft,
		EvictionSoftGracePeriod:     k.EvictionSoftGracePeriod,
		EvictionMaxPodGracePeriod:   k.EvictionMaxPodGracePeriod,
		ImageGCHighThresholdPercent: k.ImageGCHighThresholdPercent,
		ImageGCLowThresholdPercent:  k.ImageGCLowThresholdPercent,
		CPUCFSQuota:                 k.CPUCFSQuota,
	}
}

// mirrorBlockDeviceMappings keeps nil and empty lists and nil entries apart,
// as they hash differently. Volume sizes are copied because
// Quantity.String caches its result in the quantity it is called on.
func mirrorBlockDeviceMappings(in []*apis.BlockDeviceMapping) []*awsv1.BlockDeviceMapping {
	if in == nil {
		return nil
	}
	out := make([]*awsv1.BlockDeviceMapping, len(in))
	for i, m := range in {
		if m == nil {
			continue
		}
		c := &awsv1.BlockDeviceMapping{DeviceName: m.DeviceName, RootVolume: m.RootVolume}
		if e := m.EBS; e != nil {
			c.EBS = &awsv1.BlockDevice{
				DeleteOnTermination:      e.DeleteOnTermination,
				Encrypted:                e.Encrypted,
				IOPS:                     e.IOPS,
				KMSKeyID:                 e.KMSKeyID,
				SnapshotID:               e.SnapshotID,
				Throughput:               e.Throughput,
				VolumeInitializationRate: e.VolumeInitializationRate,
				VolumeType:               e.VolumeType,
			}
			if e.VolumeSize != nil {
				size := e.VolumeSize.DeepCopy()
				c.EBS.VolumeSize = &size
			}
		}
		out[i] = c
	}
	return out
}

// mirrorMetadataOptions applies the CRD's defaults, field by field, as the
// API server does before Karpenter ever reads the class.
func mirrorMetadataOptions(m *apis.MetadataOptions) *awsv1.MetadataOptions {
	var in apis.MetadataOptions
	if m != nil {
		in = *m
	}
	return &awsv1.MetadataOptions{
		HTTPEndpoint:            orDefault(in.HTTPEndpoint, "enabled"),
		HTTPProtocolIPv6:        orDefault(in.HTTPProtocolIPv6, "disabled"),
		HTTPPutResponseHopLimit: orDefault(in.HTTPPutResponseHopLimit, 1),
		HTTPTokens:              orDefault(in.HTTPTokens, "required"),
	}
}

func orDefault[T any](p *T, v T) *T {
	if p != nil {
		return p
	}
	return &v
}

// Stamp returns a copy of claim with the four hash annotations set from np
// and nc at the current hash versions, as Karpenter sets them when it
// launches a NodeClaim. A nil np or nc leaves its two annotations as they
// are. claim itself is not modified; a nil claim gives nil.
func Stamp(claim *apis.NodeClaim, np *apis.NodePool, nc *apis.EC2NodeClass) *apis.NodeClaim {
	if claim == nil {
		return nil
	}
	out := claim.DeepCopy()
	annotations := maps.Clone(out.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	if np != nil {
		annotations[apis.AnnotationNodePoolHash] = NodePoolHash(np)
		annotations[apis.AnnotationNodePoolHashVersion] = NodePoolHashVersion
	}
	if nc != nil {
		annotations[apis.AnnotationEC2NodeClassHash] = NodeClassHash(nc)
		annotations[apis.AnnotationEC2NodeClassHashVersion] = EC2NodeClassHashVersion
	}
	out.Annotations = annotations
	return out
}

// Restamp returns a copy of claim as Karpenter's two hash controllers leave
// it after an upgrade changed a hash version: for the NodePool and for the
// EC2NodeClass, when the claim's version annotation differs from the current
// version, the version is set to the current one and the hash is recomputed
// from np or nc. A claim already marked Drifted keeps its old hash, because
// Karpenter can no longer tell whether it still differs. changed reports
// whether any annotation changed. A nil np or nc is left alone, as is a nil
// claim (returned as nil).
func Restamp(claim *apis.NodeClaim, np *apis.NodePool, nc *apis.EC2NodeClass) (out *apis.NodeClaim, changed bool) {
	if claim == nil {
		return nil, false
	}
	out = claim.DeepCopy()
	annotations := maps.Clone(out.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	drifted := hasCondition(claim, conditionDrifted)
	restamp := func(hashKey, versionKey, version string, hash func() string) {
		if claim.Annotations[versionKey] == version {
			return
		}
		annotations[versionKey] = version
		if !drifted {
			annotations[hashKey] = hash()
		}
		changed = true
	}
	if np != nil {
		restamp(apis.AnnotationNodePoolHash, apis.AnnotationNodePoolHashVersion, NodePoolHashVersion,
			func() string { return NodePoolHash(np) })
	}
	if nc != nil {
		restamp(apis.AnnotationEC2NodeClassHash, apis.AnnotationEC2NodeClassHashVersion, EC2NodeClassHashVersion,
			func() string { return NodeClassHash(nc) })
	}
	if changed {
		out.Annotations = annotations
	}
	return out, changed
}

// Condition types of a NodeClaim that drift reads.
const (
	conditionLaunched = "Launched"
	conditionDrifted  = "Drifted"
)

// hasCondition reports whether the claim records a condition of type t,
// whatever its status: Karpenter's hash controllers look for presence only.
func hasCondition(claim *apis.NodeClaim, t string) bool {
	return findCondition(claim, t) != nil
}

func findCondition(claim *apis.NodeClaim, t string) *metav1.Condition {
	for i := range claim.Status.Conditions {
		if claim.Status.Conditions[i].Type == t {
			return &claim.Status.Conditions[i]
		}
	}
	return nil
}
