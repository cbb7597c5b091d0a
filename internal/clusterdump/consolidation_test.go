package clusterdump

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The consolidation cluster is the same bytes for the same size, and every
// node holds pods that fit its allocatable and use at most 55% of it, so
// that no node is empty and every one is under-used.
func TestConsolidationCluster(t *testing.T) {
	var a, b bytes.Buffer
	if err := ConsolidationCluster(&a, 60); err != nil {
		t.Fatal(err)
	}
	if err := ConsolidationCluster(&b, 60); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two clusters of 60 nodes differ")
	}
	type use struct{ cpu, mem, allocCPU, allocMem int64 }
	nodes := map[string]*use{}
	dec := yaml.NewDecoder(&a)
	for {
		var doc struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     struct {
				NodeName   string `yaml:"nodeName"`
				Containers []struct {
					Resources struct{ Requests map[string]string }
				}
			}
			Status struct{ Allocatable map[string]string }
		}
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		switch doc.Kind {
		case "Node":
			nodes[doc.Metadata.Name] = &use{allocCPU: milli(t, doc.Status.Allocatable["cpu"]), allocMem: mebi(t, doc.Status.Allocatable["memory"])}
		case "Pod":
			u := nodes[doc.Spec.NodeName]
			if u == nil {
				t.Fatalf("pod %s is bound to %q, which no Node before it names", doc.Metadata.Name, doc.Spec.NodeName)
			}
			u.cpu += milli(t, doc.Spec.Containers[0].Resources.Requests["cpu"])
			u.mem += mebi(t, doc.Spec.Containers[0].Resources.Requests["memory"])
		}
	}
	if len(nodes) != 60 {
		t.Fatalf("%d nodes, want 60", len(nodes))
	}
	for name, u := range nodes {
		if u.cpu == 0 {
			t.Errorf("%s is empty", name)
		}
		if u.cpu*100 > u.allocCPU*55 || u.mem*100 > u.allocMem*55 {
			t.Errorf("%s: pods request %dm of %dm cpu and %dMi of %dMi memory, more than 55%%", name, u.cpu, u.allocCPU, u.mem, u.allocMem)
		}
	}
}

func milli(t *testing.T, q string) int64 {
	n, err := strconv.ParseInt(strings.TrimSuffix(q, "m"), 10, 64)
	if err != nil {
		t.Fatalf("cpu %q: %v", q, err)
	}
	return n
}

func mebi(t *testing.T, q string) int64 {
	n, err := strconv.ParseInt(strings.TrimSuffix(q, "Mi"), 10, 64)
	if err != nil {
		t.Fatalf("memory %q: %v", q, err)
	}
	return n
}
