package provisioning

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
	"github.com/karpsim/karpsim/upstream/differential/clustergen"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"
)

// YAML is the cluster as one multi-document YAML stream, as kubectl get -o
// yaml of each object would print it.
func YAML(c *clustergen.Cluster) ([]byte, error) {
	objs := c.Objects()
	var buf bytes.Buffer
	for _, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	return buf.Bytes(), nil
}

// RunKarpsim plans the cluster as `karpsim plan -f - --catalog FILE`
// does: its YAML read by manifests.LoadReader, the catalog from its JSON,
// snapshot.FromSet, scheduling.Solve with the default options.
func RunKarpsim(c *clustergen.Cluster) (Decision, scheduling.Result, error) {
	data, err := YAML(c)
	if err != nil {
		return Decision{}, scheduling.Result{}, err
	}
	set, err := manifests.LoadReader("<stdin>", bytes.NewReader(data))
	if err != nil {
		return Decision{}, scheduling.Result{}, fmt.Errorf("karpsim: reading the manifests: %w", err)
	}
	catalog, err := instancetypes.ReadJSON(bytes.NewReader(c.Catalog), "catalog.json")
	if err != nil {
		return Decision{}, scheduling.Result{}, fmt.Errorf("karpsim: reading the catalog: %w", err)
	}
	snap, err := snapshot.FromSet(set, snapshot.Options{Region: "us-east-1", Zones: clustergen.Zones,
		Catalog: func(*apis.EC2NodeClass) (instancetypes.Catalog, error) { return catalog, nil }})
	if err != nil {
		return Decision{}, scheduling.Result{}, fmt.Errorf("karpsim: snapshot: %w", err)
	}
	result := scheduling.Solve(snap.Input(scheduling.Options{}))
	byName := map[string]*cloudprovider.InstanceType{}
	for _, it := range karpenterTypes(catalog) {
		byName[it.Name] = it
	}
	d := Decision{Pending: len(c.Pending)}
	placed := map[string]bool{}
	for _, nc := range result.NodeClaims {
		var options []*cloudprovider.InstanceType
		for _, n := range nc.InstanceTypeOptions {
			if it, ok := byName[n]; ok {
				options = append(options, it)
			}
		}
		reqs := karpsched.NewNodeSelectorRequirements(nc.Requirements...)
		name, price := cheapest(options, reqs)
		var pods []string
		for _, p := range nc.Pods {
			placed[p] = true
			pods = append(pods, p[strings.IndexByte(p, '/')+1:])
		}
		d.addClaim(nc.NodePool, name, price, zonesOf(reqs), len(options), pods)
	}
	for _, b := range result.Bindings {
		placed[b.Pod] = true
		d.OnExisting++
	}
	for _, p := range c.Pending {
		if key := p.Namespace + "/" + p.Name; !placed[key] {
			d.Unschedulable = append(d.Unschedulable, key)
		}
	}
	for _, u := range result.Unschedulable {
		d.errors = append(d.errors, u.Pod+": "+u.Reason)
	}
	d.finish()
	return d, result, nil
}
