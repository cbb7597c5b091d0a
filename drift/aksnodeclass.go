package drift

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/drift/internal/azurev1beta1"
)

// AKSNodeClassHashVersion is the Azure provider's AKSNodeClassHashVersion
// (v3 in provider v1.14).
const AKSNodeClassHashVersion = "v3"

// The Azure provider's drift reasons, besides NodeClassDrift, which it
// shares with the AWS provider.
const (
	// K8sVersionDrift: the node's kubelet runs another Kubernetes version
	// than the AKSNodeClass's status.kubernetesVersion.
	K8sVersionDrift Reason = "K8sVersionDrift"
	// ImageDrift: the claim's image is none of the AKSNodeClass's
	// status.images.
	ImageDrift Reason = "ImageDrift"
	// KubeletIdentityDrift: the node's kubelet identity is not the
	// cluster's.
	KubeletIdentityDrift Reason = "KubeletIdentityDrift"
)

// AKSNodeClassHash returns the karpenter.azure.com/aksnodeclass-hash the
// Azure provider computes for an AKSNodeClass: a hash of its spec, tags
// left out, as the API server stores it (call SetDefaults first, as
// manifests does). A nil class hashes like an empty spec.
func AKSNodeClassHash(nc *apis.AKSNodeClass) string {
	var spec apis.AKSNodeClassSpec
	if nc != nil {
		spec = nc.Spec
	}
	return mustHash(mirrorAKSNodeClassSpec(spec))
}

// AKSNodeClassHashOf is the hash the Azure provider compares a claim's
// with: the one stamped on the class at the current hash version, as a
// class read from a live cluster carries, else AKSNodeClassHash.
func AKSNodeClassHashOf(nc *apis.AKSNodeClass) string {
	if nc != nil && nc.Annotations[apis.AnnotationAKSNodeClassHashVersion] == AKSNodeClassHashVersion {
		if h, ok := nc.Annotations[apis.AnnotationAKSNodeClassHash]; ok {
			return h
		}
	}
	return AKSNodeClassHash(nc)
}

// StampAKS returns a copy of claim carrying the AKSNodeClass's hash and
// hash version, as the Azure provider stamps a claim it launches. claim is
// not modified; a nil claim gives nil, a nil class leaves the claim's
// annotations as they are.
func StampAKS(claim *apis.NodeClaim, nc *apis.AKSNodeClass) *apis.NodeClaim {
	if claim == nil {
		return nil
	}
	out := claim.DeepCopy()
	if nc == nil {
		return out
	}
	annotations := maps.Clone(out.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[apis.AnnotationAKSNodeClassHash] = AKSNodeClassHashOf(nc)
	annotations[apis.AnnotationAKSNodeClassHashVersion] = AKSNodeClassHashVersion
	out.Annotations = annotations
	return out
}

func mirrorAKSNodeClassSpec(s apis.AKSNodeClassSpec) azurev1beta1.AKSNodeClassSpec {
	out := azurev1beta1.AKSNodeClassSpec{
		VNETSubnetID: s.VNETSubnetID, OSDiskSizeGB: s.OSDiskSizeGB, ImageFamily: s.ImageFamily, FIPSMode: s.FIPSMode, MaxPods: s.MaxPods,
	}
	if k := s.Kubelet; k != nil {
		m := azurev1beta1.KubeletConfiguration(*k)
		out.Kubelet = &m
	}
	if v := s.Security; v != nil {
		out.Security = &azurev1beta1.Security{EncryptionAtHost: v.EncryptionAtHost}
	}
	if v := s.GPU; v != nil {
		out.GPU = &azurev1beta1.GPU{Mode: v.Mode}
	}
	if v := s.ArtifactStreaming; v != nil {
		out.ArtifactStreaming = &azurev1beta1.ArtifactStreaming{Enabled: v.Enabled}
	}
	if d := s.LocalDNS; d != nil {
		out.LocalDNS = &azurev1beta1.LocalDNS{Mode: d.Mode, VnetDNSOverrides: mirrorZoneOverrides(d.VnetDNSOverrides),
			KubeDNSOverrides: mirrorZoneOverrides(d.KubeDNSOverrides)}
	}
	if c := s.LinuxOSConfig; c != nil {
		out.LinuxOSConfig = &azurev1beta1.LinuxOSConfiguration{SwapFileSize: c.SwapFileSize,
			TransparentHugePageDefrag: c.TransparentHugePageDefrag, TransparentHugePageEnabled: c.TransparentHugePageEnabled}
		if v := c.Sysctls; v != nil {
			m := azurev1beta1.SysctlConfiguration(*v)
			out.LinuxOSConfig.Sysctls = &m
		}
	}
	return out
}

func mirrorZoneOverrides(in []apis.AKSLocalDNSZoneOverride) []azurev1beta1.LocalDNSZoneOverride {
	if in == nil {
		return nil
	}
	out := make([]azurev1beta1.LocalDNSZoneOverride, len(in))
	for i, o := range in {
		out[i] = azurev1beta1.LocalDNSZoneOverride{Zone: o.Zone, QueryLogging: o.QueryLogging, Protocol: o.Protocol,
			ForwardDestination: o.ForwardDestination, ForwardPolicy: o.ForwardPolicy, MaxConcurrent: o.MaxConcurrent,
			CacheDuration: azurev1beta1.NillableDuration{Duration: o.CacheDuration.Duration}, ServeStale: o.ServeStale,
			ServeStaleDuration: azurev1beta1.NillableDuration{Duration: o.ServeStaleDuration.Duration}}
	}
	return out
}

// aksNodeClassHash is the Azure provider's static check: the claim's
// stamped hash against the class's at the same hash version.
func (e *evaluation) aksNodeClassHash() verdict {
	nc := e.in.AKSNodeClass
	return e.compareHash(NodeClassDrift, apis.AnnotationAKSNodeClassHash, apis.AnnotationAKSNodeClassHashVersion,
		AKSNodeClassHashVersion, fmt.Sprintf("AKSNodeClass %q", nc.Name), func() string { return AKSNodeClassHashOf(nc) })
}

// statusReady says whether the class's condition of type t lets the Azure
// provider use the status it guards: True and observed at the class's
// generation. A class without the condition, as one written by hand, is
// taken as ready; why says what is not.
func statusReady(nc *apis.AKSNodeClass, t string) (ok bool, why string) {
	for _, c := range nc.Status.Conditions {
		if c.Type != t {
			continue
		}
		switch {
		case c.Status != metav1.ConditionTrue:
			return false, fmt.Sprintf("AKSNodeClass %q condition %s is %s", nc.Name, t, c.Status)
		case c.ObservedGeneration != nc.Generation:
			return false, fmt.Sprintf("AKSNodeClass %q condition %s was observed at generation %d, the class is at %d", nc.Name, t, c.ObservedGeneration, nc.Generation)
		}
		return true, ""
	}
	return true, ""
}

// k8sVersion compares the node's kubelet version with the class's
// status.kubernetesVersion. The Azure provider skips the check while the
// version is not ready or the node is unknown.
func (e *evaluation) k8sVersion() verdict {
	nc := e.in.AKSNodeClass
	if ok, why := statusReady(nc, apis.AKSConditionKubernetesVersionReady); !ok {
		e.note("%s: %s not checked", why, K8sVersionDrift)
		return verdict{}
	}
	want := ""
	if nc.Status.KubernetesVersion != nil {
		want = *nc.Status.KubernetesVersion
	}
	switch {
	case want == "":
		e.note("AKSNodeClass %q has no status.kubernetesVersion: %s not checked", nc.Name, K8sVersionDrift)
		return verdict{}
	case e.in.KubeletVersion == "":
		e.note("no kubelet version of NodeClaim %q's node given: %s not checked", e.claim.Name, K8sVersionDrift)
		return verdict{}
	}
	if got := strings.TrimPrefix(e.in.KubeletVersion, "v"); got != want {
		return drifted(K8sVersionDrift, "node of NodeClaim %q runs Kubernetes %s, AKSNodeClass %q status.kubernetesVersion is %s",
			e.claim.Name, got, nc.Name, want)
	}
	return verdict{}
}

// kubeletIdentity compares the node's kubelet identity client ID label
// with the cluster's; a node without the label is not checked.
func (e *evaluation) kubeletIdentity() verdict {
	got := e.in.NodeKubeletIdentityClientID
	if got == "" {
		return verdict{}
	}
	if got != e.in.KubeletIdentityClientID {
		return drifted(KubeletIdentityDrift, "node of NodeClaim %q has kubelet identity client ID %q, the cluster's is %q",
			e.claim.Name, got, e.in.KubeletIdentityClientID)
	}
	return verdict{}
}

// image checks the claim's image against the class's status.images: any
// of them will do, whatever its requirements (the provider's check on
// virtual machines; the AKS machine API's version form is not modelled).
func (e *evaluation) image() verdict {
	nc := e.in.AKSNodeClass
	if ok, why := statusReady(nc, apis.AKSConditionImagesReady); !ok {
		e.note("%s: %s not checked", why, ImageDrift)
		return verdict{}
	}
	switch {
	case len(nc.Status.Images) == 0:
		return halted("AKSNodeClass %q status.images is empty", nc.Name)
	case e.claim.Status.ImageID == "":
		return halted("NodeClaim %q has no status.imageID", e.claim.Name)
	}
	ids := make([]string, len(nc.Status.Images))
	for i, img := range nc.Status.Images {
		ids[i] = img.ID
	}
	if slices.Contains(ids, e.claim.Status.ImageID) {
		return verdict{}
	}
	return drifted(ImageDrift, "image %s of NodeClaim %q is none of AKSNodeClass %q's status.images (%s)",
		e.claim.Status.ImageID, e.claim.Name, nc.Name, strings.Join(ids, ", "))
}

// RestampAKSNodeClass returns next as the Azure provider's hash controller
// leaves it when an AKSNodeClass's spec changes from prev to next: the
// class's stamped hash and its version carry over from prev when the
// hashed part of the spec did not change, and are dropped otherwise.
// Without prev next keeps its own stamp. next itself is not modified.
func RestampAKSNodeClass(prev, next *apis.AKSNodeClass) *apis.AKSNodeClass {
	if next == nil {
		return nil
	}
	out := next.DeepCopy()
	if prev == nil {
		return out
	}
	out.Annotations = restamp(prev.Annotations, out.Annotations, AKSNodeClassHash(prev) == AKSNodeClassHash(next),
		apis.AnnotationAKSNodeClassHash, apis.AnnotationAKSNodeClassHashVersion)
	return out
}
