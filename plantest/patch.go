package plantest

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/manifests/patch"
	"github.com/karpsim/karpsim/simulator"
)

// PatchNodePools returns a copy of the scenario whose NodePools are
// changed by JSON merge patches (RFC 7386), by NodePool name, "*" patching
// every NodePool before the named ones: the rules of a sweep variant's
// nodePools (package manifests/patch), so a test can try the scenario's
// own NodePool with another limit, weight or requirement list. The
// scenario's manifests are read now and carried in its Inline; a name no
// NodePool has stops the test. The scenario itself is not changed.
func PatchNodePools(t TB, sc simulator.Scenario, patches map[string]map[string]any) simulator.Scenario {
	t.Helper()
	return patchKind(t, sc, "NodePool", patches)
}

// PatchEC2NodeClasses is PatchNodePools for the scenario's EC2NodeClasses.
func PatchEC2NodeClasses(t TB, sc simulator.Scenario, patches map[string]map[string]any) simulator.Scenario {
	t.Helper()
	return patchKind(t, sc, "EC2NodeClass", patches)
}

func patchKind(t TB, sc simulator.Scenario, kind string, patches map[string]map[string]any) simulator.Scenario {
	t.Helper()
	names := make([]string, 0, len(patches))
	for name := range patches {
		names = append(names, name)
	}
	slices.Sort(names)
	out, touched, ok := rewrite(t, sc, patch.Rules{Patches: map[string]map[string]map[string]any{kind: patches}})
	if !ok {
		return sc
	}
	for _, name := range names {
		if name != "*" && !touched[kind+"/"+name] {
			t.Fatalf("plantest: %s has no %s %q to patch", scenarioName(sc.Name), kind, name)
			return sc
		}
	}
	out.Name = variantName(sc.Name, []string{"patched " + kind + " " + strings.Join(names, ", ")})
	return out
}

// Replace returns a copy of the scenario in which the NodePools,
// EC2NodeClasses and NodeOverlays of files (relative to the test's working
// directory) take the place of the scenario's of the same name, and the
// files' other objects are added: the same workload on a NodePool a
// change proposes, where Variant would refuse a second NodePool of one
// name. The scenario's manifests are read now and carried in its Inline;
// the files are read by the run. The scenario itself is not changed.
func Replace(t TB, sc simulator.Scenario, files ...string) simulator.Scenario {
	t.Helper()
	set, err := manifests.Load(files...)
	if set == nil {
		t.Fatalf("plantest: loading %v: %v", files, err)
		return sc
	}
	drop := map[string]bool{}
	for _, np := range set.NodePools {
		drop["NodePool/"+np.Name] = true
	}
	for _, nc := range set.EC2NodeClasses {
		drop["EC2NodeClass/"+nc.Name] = true
	}
	for _, o := range set.NodeOverlays {
		drop["NodeOverlay/"+o.Name] = true
	}
	out, _, ok := rewrite(t, sc, patch.Rules{Drop: drop})
	if !ok {
		return sc
	}
	out.Manifests = slices.Clone(files)
	out.Name = variantName(sc.Name, files)
	return out
}

// rewrite reads the scenario's manifests (files, folders and Inline),
// applies the rules, and returns the scenario with the result as its
// Inline and no manifest paths, and what the rules touched.
func rewrite(t TB, sc simulator.Scenario, rules patch.Rules) (simulator.Scenario, map[string]bool, bool) {
	t.Helper()
	var streams []manifests.Stream
	for _, path := range sc.Manifests {
		files, err := manifests.Files(path)
		if err != nil {
			t.Fatalf("plantest: %s: %v", scenarioName(sc.Name), err)
			return sc, nil, false
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatalf("plantest: %s: %v", scenarioName(sc.Name), err)
				return sc, nil, false
			}
			streams = append(streams, manifests.Stream{Name: f, Data: data})
		}
	}
	if sc.Inline != "" {
		streams = append(streams, manifests.Stream{Name: "inline", Data: []byte(sc.Inline)})
	}
	touched := map[string]bool{}
	var inline bytes.Buffer
	for _, s := range streams {
		data, err := patch.Stream(s.Data, rules, touched)
		if err != nil {
			t.Fatalf("plantest: %s: %s: %v", scenarioName(sc.Name), s.Name, err)
			return sc, nil, false
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		if inline.Len() > 0 {
			inline.WriteString("---\n")
		}
		fmt.Fprintf(&inline, "# from %s\n", s.Name)
		inline.Write(data)
		if data[len(data)-1] != '\n' {
			inline.WriteByte('\n')
		}
	}
	sc.Manifests, sc.Inline = nil, inline.String()
	sc.Steps = slices.Clone(sc.Steps)
	return sc, touched, true
}
