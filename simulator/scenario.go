package simulator

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/clusterautoscaler"
	"github.com/karpsim/karpsim/manifests"
)

// Scenario is one simulation: the cluster at the start, how long to run, the
// seed, and what happens when. Its YAML form has the same field names:
//
//	name: scale-up-down
//	seed: 7
//	duration: 30m
//	manifests: [seed-manifests/]     # files or folders inside the scenario file's folder
//	inline: |                        # more manifests, multi-document YAML
//	  apiVersion: apps/v1
//	  kind: Deployment
//	  ...
//	cloud: {failureRate: 0.05, capacity: [{instanceType: c6a.large, zone: us-east-1a, capacityType: spot, count: 0}]}
//	steps:
//	- {at: 1m, scale: {deployment: inflate, replicas: 10}}
//	- {at: 10m, interrupt: {instanceType: c6a.2xlarge, count: 1}}
//	- {at: 20m, releaseAMI: {nodeClass: default, id: ami-0new}}
//	- {at: 22m, kubernetesVersion: {nodeClass: default, version: 1.34.1}}
//	- {at: 25m, nodePool: {manifest: "apiVersion: karpenter.sh/v1\nkind: NodePool\n..."}}
//	- {at: 30m, nodeClass: {manifest: "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\n..."}}
//	- {at: 0s, traffic: {deployment: web, every: 1h, min: 4, max: 40, peakAt: 14h}}
//	- {at: 0s, arrivals: {deployment: batch, perHour: 30, meanLifetime: 20m, until: 8h}}
//	- {at: 1h, buffer: {manifest: "apiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\n..."}}
//	- {at: 2h, buffer: {name: web-headroom, replicas: 4}}
type Scenario struct {
	Name string `json:"name,omitempty"`
	// Seed seeds every random choice of the run (PCG) and is echoed in the
	// result. The same scenario and seed give byte-identical results.
	Seed uint64 `json:"seed"`
	// Duration is how much virtual time to simulate; it must be positive.
	Duration metav1.Duration `json:"duration"`
	// Start is the virtual time the run starts at; zero means DefaultStart().
	Start metav1.Time `json:"start,omitzero"`
	// Manifests are files or folders read with manifests.Load. LoadScenario
	// resolves relative paths against the scenario file's folder.
	Manifests []string `json:"manifests,omitempty"`
	// Inline is more manifests, read with manifests.Decode.
	Inline string `json:"inline,omitempty"`
	// Cloud configures the in-memory cloud used when Config.Launcher is nil.
	Cloud CloudSpec `json:"cloud,omitzero"`
	// SampleEvery is how often nodes and cost are sampled; zero means 5m.
	SampleEvery metav1.Duration `json:"sampleEvery,omitzero"`
	// ClusterAutoscaler configures the Cluster Autoscaler a run with
	// Config.Autoscaler AutoscalerClusterAutoscaler hosts: its node groups
	// and flags. Without it, clusterautoscaler.DefaultNodeGroups and CA's
	// defaults stand in. Karpenter runs ignore it, as CA runs ignore
	// NodePools.
	ClusterAutoscaler *clusterautoscaler.Spec `json:"clusterAutoscaler,omitempty"`
	// DRA models dynamic resource allocation as Karpenter does with
	// --ignore-dra-requests=false (package dra): GPU instance types offer
	// their devices, pods' ResourceClaims request them. Without it pods
	// that claim devices stay pending, as Karpenter ignores them by
	// default.
	DRA bool `json:"dra,omitempty"`
	// Steps happen at their offsets from the start, in order; steps at the
	// same offset happen in the order listed.
	Steps []Step `json:"steps,omitempty"`
}

// DefaultStart is when a scenario without a start begins: a fixed instant,
// Monday 2026-01-05 00:00 UTC, so that results do not depend on the wall
// clock. It is a function so that no caller can move it for everyone.
func DefaultStart() time.Time { return time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC) }

// CloudSpec configures the in-memory cloud (cloud.MemoryConfig).
type CloudSpec struct {
	// FailureRate is the chance that any launch fails with insufficient
	// capacity.
	FailureRate float64 `json:"failureRate,omitempty"`
	// Capacity limits how many instances of an offering may run at once;
	// count 0 makes the offering always fail with insufficient capacity.
	Capacity []CapacityLimit `json:"capacity,omitempty"`
	// RegistrationDelay, InitializationDelay and LaunchJitter override the
	// cloud's launch timings (see cloud.DefaultRegistrationDelay).
	RegistrationDelay   metav1.Duration `json:"registrationDelay,omitzero"`
	InitializationDelay metav1.Duration `json:"initializationDelay,omitzero"`
	LaunchJitter        metav1.Duration `json:"launchJitter,omitzero"`
	// ZonalShifts are the zones, or zone IDs the EC2NodeClasses'
	// status.subnets resolve, an ARC zonal shift moves the cluster away
	// from for the whole run: no offering in them is available
	// (instancetypes.AWSOptions.ZonalShifts).
	ZonalShifts []string `json:"zonalShifts,omitempty"`
}

// CapacityLimit caps one offering.
type CapacityLimit struct {
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	CapacityType string `json:"capacityType"`
	Count        int    `json:"count"`
}

// Step is one change at an offset from the start. Exactly one of its kinds
// is set.
type Step struct {
	At metav1.Duration `json:"at"`
	// Scale sets a Deployment's replicas.
	Scale *ScaleStep `json:"scale,omitempty"`
	// Interrupt sends spot interruption notices.
	Interrupt *InterruptStep `json:"interrupt,omitempty"`
	// NodePool replaces (or adds) a NodePool.
	NodePool *NodePoolStep `json:"nodePool,omitempty"`
	// NodeClass replaces (or adds) an EC2NodeClass or an AKSNodeClass.
	NodeClass *NodeClassStep `json:"nodeClass,omitempty"`
	// ReleaseAMI makes a node class resolve a new image (an AMI, or on
	// Azure a node image), so that its nodes drift.
	ReleaseAMI *ReleaseAMIStep `json:"releaseAMI,omitempty"`
	// KubernetesVersion makes a node class launch another Kubernetes
	// version, where its provider drifts on the nodes' version (Azure).
	KubernetesVersion *KubernetesVersionStep `json:"kubernetesVersion,omitempty"`
	// Traffic scales a Deployment along a curve, from At to the end of
	// the run.
	Traffic *TrafficStep `json:"traffic,omitempty"`
	// Arrivals creates pods at random times and deletes each after a
	// random lifetime.
	Arrivals *ArrivalsStep `json:"arrivals,omitempty"`
	// Buffer adds, replaces, resizes or deletes a CapacityBuffer.
	Buffer *BufferStep `json:"buffer,omitempty"`
	// NodeCondition sets a status condition on running nodes, as a
	// kubelet or the node problem detector would: what node repair reads.
	NodeCondition *NodeConditionStep `json:"nodeCondition,omitempty"`
}

// BufferStep changes the run's CapacityBuffers: Manifest (one
// CapacityBuffer in YAML, its reference resolved when the step runs) adds
// it or replaces the one of that namespace and name; otherwise Name
// ("namespace/name", or "name" in namespace default) names a buffer of the
// run, whose spec.replicas becomes Replicas, or which Delete removes.
type BufferStep struct {
	Manifest string `json:"manifest,omitempty"`
	Name     string `json:"name,omitempty"`
	Replicas *int32 `json:"replicas,omitempty"`
	Delete   bool   `json:"delete,omitempty"`
}

// TrafficStep sets a Deployment's replicas every Every (default 1h), from
// the step's offset to the end of the run, along one of two curves:
//
//   - Replicas, a list read in turn and repeated: 24 values with Every 1h
//     are a daily profile;
//   - Min and Max: a cosine over Period (default 24h) that is at Max at
//     PeakAt (an offset from the step's start, default half the period)
//     and at Min half a period away, rounded to whole replicas.
//
// A firing that finds the Deployment at its value already is not recorded.
type TrafficStep struct {
	Deployment string          `json:"deployment"`
	Every      metav1.Duration `json:"every,omitzero"`
	Replicas   []int32         `json:"replicas,omitempty"`
	Min        int32           `json:"min,omitempty"`
	Max        int32           `json:"max,omitempty"`
	Period     metav1.Duration `json:"period,omitzero"`
	PeakAt     metav1.Duration `json:"peakAt,omitzero"`
}

// ArrivalsStep creates pods from a Deployment's template as a Poisson
// process of PerHour arrivals an hour, from the step's offset until Until
// (an offset from the start; zero means the end of the run). Each pod is
// deleted an exponentially distributed time with mean MeanLifetime after
// it arrived, whether or not it found a node: a job with a deadline, or a
// user session. The pods are named <deployment>-arrival<step>-<n>, are not
// counted as the Deployment's replicas, and draw their times from a source
// seeded with the run's seed and the step's index, so that other steps do
// not move them.
type ArrivalsStep struct {
	Deployment   string          `json:"deployment"`
	PerHour      float64         `json:"perHour"`
	MeanLifetime metav1.Duration `json:"meanLifetime"`
	Until        metav1.Duration `json:"until,omitzero"`
}

// maxSamples bounds the samples of a run.
const maxSamples = 1_000_000

// MaxPerHour bounds the rate of a random step (arrivals, interruptions):
// one event a second, the simulation's time resolution for them.
const MaxPerHour = 3600

// ScaleStep sets a Deployment's replicas. Deployment is "namespace/name",
// or "name" in namespace default; it must be in the manifests.
type ScaleStep struct {
	Deployment string `json:"deployment"`
	Replicas   int32  `json:"replicas"`
}

// InterruptStep interrupts running spot nodes: Count of them (0 means all),
// of InstanceType when it is set, chosen at random with the run's seed.
//
// With PerHour, notices instead arrive at random, a Poisson process of
// PerHour an hour from the step's offset until Until (an offset from the
// start; zero means the end of the run), each interrupting Count nodes
// (default 1); a notice that finds no spot node is dropped. Its times and
// choices come from a source seeded with the run's seed and the step's
// index.
type InterruptStep struct {
	InstanceType string          `json:"instanceType,omitempty"`
	Count        int             `json:"count,omitempty"`
	PerHour      float64         `json:"perHour,omitempty"`
	Until        metav1.Duration `json:"until,omitzero"`
}

// NodePoolStep replaces the NodePool the manifest names (or adds it). Its
// EC2NodeClass must be one the run knows: one it started with or one a
// nodeClass step added.
type NodePoolStep struct {
	// Manifest is one NodePool in YAML.
	Manifest string `json:"manifest"`
}

// NodeClassStep replaces the node class the manifest names (or adds it):
// its instance types are modelled anew (kubelet settings, block devices
// and OS disks change what is allocatable), and nodes launched with the
// old class drift when a field the provider hashes changed (static drift:
// on AWS tags, block devices, metadata options, user data, …; on Azure the
// AKSNodeClass spec but its tags) or when the class's images no longer
// include theirs. The class keeps the images (AMIs, or an AKSNodeClass's
// status.images and status.kubernetesVersion) it resolved unless the
// manifest gives its own status.
type NodeClassStep struct {
	// Manifest is one EC2NodeClass or AKSNodeClass in YAML.
	Manifest string `json:"manifest"`
}

// ReleaseAMIStep makes the node class resolve to image ID alone: an AMI
// for an EC2NodeClass, a node image (status.images, for every instance
// type) for an AKSNodeClass.
type ReleaseAMIStep struct {
	// NodeClass defaults to "default".
	NodeClass string `json:"nodeClass,omitempty"`
	ID        string `json:"id"`
}

// NodeConditionStep sets condition Type to Status (with Reason) on a node:
// the one named Node, or the first Count (default 1) by name of NodePool's
// registered nodes not being deleted. The condition's lastTransitionTime is
// the step's time when its status changes, kept otherwise. Node repair
// (simulate --feature-gates NodeRepair=true) replaces a node whose
// condition matches one of the cloud provider's repair policies for the
// policy's toleration; a node registers with Ready True.
type NodeConditionStep struct {
	Node     string `json:"node,omitempty"`
	NodePool string `json:"nodePool,omitempty"`
	Count    int    `json:"count,omitempty"`
	Type     string `json:"type"`
	// Status is True, False or Unknown (in any case: YAML reads an
	// unquoted False as a boolean).
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// KubernetesVersionStep makes the node class launch Kubernetes Version
// (major.minor.patch, a leading "v" allowed): an AKSNodeClass's
// status.kubernetesVersion, which the Azure provider compares each node's
// kubelet with, so that nodes running another version drift
// (K8sVersionDrift). An EC2NodeClass holds no version (the AWS provider
// drifts on the AMI a version resolves: use ReleaseAMI); the step then
// fails.
type KubernetesVersionStep struct {
	// NodeClass defaults to "default".
	NodeClass string `json:"nodeClass,omitempty"`
	Version   string `json:"version"`
}

// ErrInvalidScenario is wrapped by every error about a scenario's content.
var ErrInvalidScenario = errors.New("invalid scenario")

// ParseScenario reads a scenario from YAML (or JSON). Unknown fields are
// refused, each with the field it most likely misspells. Every step is
// checked as Run will convert it, so that a bad one fails here rather than
// mid-run: the manifest of a nodePool or nodeClass step is decoded and
// validated. Errors give the line of the field at fault and name a step by
// its index and what it does: "line 14: invalid scenario: steps[3] (scale
// inflate): ...".
func ParseScenario(data []byte) (Scenario, error) { return ParseScenarioFile("", data) }

// ParseScenarioFile reads a scenario as ParseScenario does, naming it name
// in errors, which then start "name:line: ".
func ParseScenarioFile(name string, data []byte) (Scenario, error) {
	p := newPlacer(name, data)
	var sc Scenario
	if err := yaml.UnmarshalStrict(data, &sc); err != nil {
		return Scenario{}, p.decodeError(err)
	}
	if sc.ClusterAutoscaler != nil {
		if err := sc.ClusterAutoscaler.Validate(); err != nil {
			return Scenario{}, fmt.Errorf("%s%w: clusterAutoscaler: %w", p.Prefix("clusterAutoscaler"), ErrInvalidScenario, err)
		}
	}
	_, err := sc.compile(p)
	return sc, err
}

// LoadScenario reads a scenario file as ParseScenarioFile reads its
// content; its errors start with the file's path. Manifest paths are
// resolved against the file's folder and must stay inside it, symbolic
// links included (manifests.Within): a scenario names only files beside it
// or below, so that it can be moved or packed whole.
func LoadScenario(path string) (Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, err
	}
	sc, err := ParseScenarioFile(path, data)
	if err != nil {
		return Scenario{}, err
	}
	if err := sc.ResolveManifests(filepath.Dir(path)); err != nil {
		return Scenario{}, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// ResolveManifests resolves the manifest paths against dir (the scenario
// file's folder, or the working folder for a scenario read from standard
// input), refusing any that leaves it, and any file of a folder they name
// that a symbolic link takes outside. A path that does not exist is left
// for the run to report.
func (sc *Scenario) ResolveManifests(dir string) error {
	for i, m := range sc.Manifests {
		path, err := manifests.Within(dir, m)
		if err != nil {
			return fmt.Errorf("%w: manifests[%d]: %w", ErrInvalidScenario, i, err)
		}
		sc.Manifests[i] = path
		files, err := manifests.Files(path)
		if err != nil {
			continue
		}
		for _, f := range files {
			if err := manifests.CheckWithin(dir, f); err != nil {
				return fmt.Errorf("%w: manifests[%d]: %w", ErrInvalidScenario, i, err)
			}
		}
	}
	return nil
}
