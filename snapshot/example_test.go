package snapshot_test

import (
	"fmt"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

func ExampleFromSet() {
	set, err := manifests.Decode("inflate.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate}
spec:
  replicas: 3
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec:
      containers: [{name: inflate, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	snap, err := snapshot.FromSet(set, snapshot.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range snap.Pending {
		fmt.Println(p.Namespace+"/"+p.Name, p.Labels["pod-template-hash"], p.OwnerReferences[0].Kind)
	}
	fmt.Println(snap.DefaultNodePool, snap.Warnings[0])
	result := scheduling.Solve(snap.Input(scheduling.Options{}))
	fmt.Println(result.Summary.ScheduledPods, "pods on", result.Summary.NodeClaims, "new node")
	// Output:
	// default/inflate-7c4c886dcc-0 7c4c886dcc ReplicaSet
	// default/inflate-7c4c886dcc-1 7c4c886dcc ReplicaSet
	// default/inflate-7c4c886dcc-2 7c4c886dcc ReplicaSet
	// true no NodePool given: using karpsim's default NodePool "default" and EC2NodeClass "default" (instance categories c, m, r; amd64; spot or on-demand; AL2023)
	// 3 pods on 1 new node
}
