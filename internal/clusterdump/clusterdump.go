// Package clusterdump writes large, realistic cluster dumps for benchmarks
// and scale tests: what `kubectl get pods -A -o yaml` and `-o json` print for
// thousands of pending pods (with managedFields, status, owner references and
// projected token volumes, about 3.8 KB of YAML a pod), and a compact
// Karpenter cluster of thousands of nodes for `karpsim disrupt`.
//
// The dumps are generated, never checked in: the same arguments always
// write the same bytes. It imports nothing from karpsim, so that any package's
// tests may use it.
package clusterdump

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
)

// Format is the output format of kubectl a dump imitates.
type Format int

const (
	// YAML is `kubectl get -o yaml`: one List document, two-space indents.
	YAML Format = iota
	// JSON is `kubectl get -o json`: one List object, four-space indents.
	JSON
)

func (f Format) String() string {
	if f == JSON {
		return "json"
	}
	return "yaml"
}

// PendingPods writes a List of n pending pods spread over the given number
// of Deployments (each pod owned by its Deployment's ReplicaSet, in ten
// namespaces), as kubectl prints them. The pods' requests are small enough
// for the NodePool NodePool writes to place them all.
func PendingPods(w io.Writer, f Format, n, deployments int) error {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(deployments)))
	apps := make([]app, deployments)
	for i := range apps {
		apps[i] = newApp(rng, i)
	}
	items := func(yield func(obj)) {
		for i := range n {
			yield(pendingPod(rng, apps[i%deployments], i))
		}
	}
	return writeList(w, f, items)
}

// app is one Deployment of a dump: its names and its pods' requests.
type app struct {
	name, namespace, hash, rsUID string
	cpu, memory                  string
	team                         int
}

func newApp(rng *rand.Rand, i int) app {
	cpus := []string{"100m", "250m", "500m", "750m", "1", "1500m", "2"}
	mems := []string{"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "3Gi"}
	return app{
		name:      fmt.Sprintf("app-%02d", i),
		namespace: fmt.Sprintf("team-%d", i%10),
		hash:      fmt.Sprintf("%010x", rng.Uint64()&0xffffffffff),
		rsUID:     uid(rng),
		cpu:       cpus[rng.IntN(len(cpus))],
		memory:    mems[rng.IntN(len(mems))],
		team:      i % 10,
	}
}

func uid(rng *rand.Rand) string {
	a, b := rng.Uint64(), rng.Uint64()
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, a>>16&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

func suffix(rng *rand.Rand) string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = letters[rng.IntN(len(letters))]
	}
	return string(b)
}

// writeList writes the items as a v1 List, in kubectl's layout for f.
func writeList(w io.Writer, f Format, items func(yield func(obj))) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if f == JSON {
		bw.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [")
		first := true
		items(func(o obj) {
			if !first {
				bw.WriteByte(',')
			}
			first = false
			bw.WriteString("\n        ")
			writeJSON(bw, o, 8)
		})
		bw.WriteString("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
		return bw.Flush()
	}
	bw.WriteString("apiVersion: v1\nitems:\n")
	items(func(o obj) { writeYAML(bw, o, 2, "- ") })
	bw.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return bw.Flush()
}

func pendingPod(rng *rand.Rand, a app, i int) obj {
	name := fmt.Sprintf("%s-%s-%s", a.name, a.hash, suffix(rng))
	podUID := uid(rng)
	token := "kube-api-access-" + suffix(rng)
	created := fmt.Sprintf("2026-03-03T%02d:%02d:%02dZ", 8+i/3600%4, i/60%60, i%60)
	rs := a.name + "-" + a.hash
	return obj{
		{"apiVersion", "v1"},
		{"kind", "Pod"},
		{"metadata", obj{
			{"annotations", obj{{"kubernetes.io/psp", "eks.privileged"}}},
			{"creationTimestamp", created},
			{"generateName", rs + "-"},
			{"labels", obj{{"app", a.name}, {"pod-template-hash", a.hash}, {"team", fmt.Sprintf("team-%d", a.team)}}},
			{"managedFields", managedFields(a, created)},
			{"name", name},
			{"namespace", a.namespace},
			{"ownerReferences", list{obj{
				{"apiVersion", "apps/v1"}, {"blockOwnerDeletion", true}, {"controller", true},
				{"kind", "ReplicaSet"}, {"name", rs}, {"uid", a.rsUID},
			}}},
			{"resourceVersion", fmt.Sprint(1000000 + i)},
			{"uid", podUID},
		}},
		{"spec", obj{
			{"containers", list{obj{
				{"image", "registry.example.com/" + a.name + ":1.4.2"},
				{"imagePullPolicy", "IfNotPresent"},
				{"name", "app"},
				{"resources", obj{
					{"limits", obj{{"memory", a.memory}}},
					{"requests", obj{{"cpu", a.cpu}, {"memory", a.memory}}},
				}},
				{"terminationMessagePath", "/dev/termination-log"},
				{"terminationMessagePolicy", "File"},
				{"volumeMounts", list{obj{
					{"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"}, {"name", token}, {"readOnly", true},
				}}},
			}}},
			{"dnsPolicy", "ClusterFirst"},
			{"enableServiceLinks", true},
			{"preemptionPolicy", "PreemptLowerPriority"},
			{"priority", 0},
			{"restartPolicy", "Always"},
			{"schedulerName", "default-scheduler"},
			{"securityContext", obj{}},
			{"serviceAccount", "default"},
			{"serviceAccountName", "default"},
			{"terminationGracePeriodSeconds", 30},
			{"tolerations", list{
				obj{{"effect", "NoExecute"}, {"key", "node.kubernetes.io/not-ready"}, {"operator", "Exists"}, {"tolerationSeconds", 300}},
				obj{{"effect", "NoExecute"}, {"key", "node.kubernetes.io/unreachable"}, {"operator", "Exists"}, {"tolerationSeconds", 300}},
			}},
			{"volumes", list{obj{
				{"name", token},
				{"projected", obj{
					{"defaultMode", 420},
					{"sources", list{
						obj{{"serviceAccountToken", obj{{"expirationSeconds", 3607}, {"path", "token"}}}},
						obj{{"configMap", obj{{"items", list{obj{{"key", "ca.crt"}, {"path", "ca.crt"}}}}, {"name", "kube-root-ca.crt"}}}},
						obj{{"downwardAPI", obj{{"items", list{obj{
							{"fieldRef", obj{{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}, {"path", "namespace"},
						}}}}}},
					}},
				}},
			}}},
		}},
		{"status", obj{
			{"conditions", list{obj{
				{"lastProbeTime", null{}},
				{"lastTransitionTime", created},
				{"message", "0/12 nodes are available: 12 Insufficient cpu. preemption: 0/12 nodes are available: 12 No preemption victims found for incoming pod."},
				{"reason", "Unschedulable"},
				{"status", "False"},
				{"type", "PodScheduled"},
			}}},
			{"phase", "Pending"},
			{"qosClass", "Burstable"},
		}},
	}
}

// managedFields are the two entries the API server records for a pending
// pod: the ReplicaSet controller's create and the scheduler's status update.
func managedFields(a app, created string) list {
	set := obj{}
	container := obj{
		{".", obj{}},
		{"f:image", set}, {"f:imagePullPolicy", set}, {"f:name", set},
		{"f:resources", obj{{".", obj{}}, {"f:limits", obj{{".", obj{}}, {"f:memory", obj{}}}}, {"f:requests", obj{{".", obj{}}, {"f:cpu", obj{}}, {"f:memory", obj{}}}}}},
		{"f:terminationMessagePath", set}, {"f:terminationMessagePolicy", set},
	}
	return list{
		obj{
			{"apiVersion", "v1"},
			{"fieldsType", "FieldsV1"},
			{"fieldsV1", obj{
				{"f:metadata", obj{
					{"f:generateName", obj{}},
					{"f:labels", obj{{".", obj{}}, {"f:app", obj{}}, {"f:pod-template-hash", obj{}}, {"f:team", obj{}}}},
					{"f:ownerReferences", obj{{".", obj{}}, {`k:{"uid":"` + a.rsUID + `"}`, obj{}}}},
				}},
				{"f:spec", obj{
					{"f:containers", obj{{`k:{"name":"app"}`, container}}},
					{"f:dnsPolicy", obj{}}, {"f:enableServiceLinks", obj{}}, {"f:restartPolicy", obj{}}, {"f:schedulerName", obj{}},
					{"f:securityContext", obj{}}, {"f:terminationGracePeriodSeconds", obj{}},
				}},
			}},
			{"manager", "kube-controller-manager"},
			{"operation", "Update"},
			{"time", created},
		},
		obj{
			{"apiVersion", "v1"},
			{"fieldsType", "FieldsV1"},
			{"fieldsV1", obj{{"f:status", obj{{"f:conditions", obj{{".", obj{}}, {`k:{"type":"PodScheduled"}`, obj{
				{".", obj{}}, {"f:lastProbeTime", obj{}}, {"f:lastTransitionTime", obj{}}, {"f:message", obj{}}, {"f:reason", obj{}}, {"f:status", obj{}}, {"f:type", obj{}},
			}}}}}}}},
			{"manager", "kube-scheduler"},
			{"operation", "Update"},
			{"subresource", "status"},
			{"time", created},
		},
	}
}

// nodeClass is the EC2NodeClass every dump's NodePool refers to, with the
// document separator after it.
const nodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: my-cluster}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: my-cluster}
  role: KarpenterNodeRole-my-cluster
---
`

// NodePool writes the NodePool and EC2NodeClass a PendingPods dump is
// planned against: on-demand and spot c, m and r instances of generation 5
// and later.
func NodePool(w io.Writer) error {
	_, err := io.WriteString(w, nodeClass+`apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["4"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand, spot]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
`)
	return err
}
