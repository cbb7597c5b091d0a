// Command karpenter-crds writes Karpenter's own CustomResourceDefinitions
// (NodePool, NodeClaim, NodeOverlay and EC2NodeClass, from the modules this
// nested module requires) to a directory, one NAME.yaml per CRD, and prints
// the paths. karpsim's API-server tests install them from there when
// KARPSIM_KARPENTER_CRDS names the directory:
//
//	cd upstream && GOTOOLCHAIN=go1.27.3 go run ./cmd/karpenter-crds DIR
package main

import (
	"fmt"
	"os"

	"github.com/karpsim/karpsim/upstream/crds"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] == "" || os.Args[1][0] == '-' {
		fmt.Fprintln(os.Stderr, "usage: karpenter-crds DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "karpenter-crds:", err)
		os.Exit(1)
	}
	paths, err := crds.Write(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "karpenter-crds:", err)
		os.Exit(1)
	}
	for _, p := range paths {
		fmt.Println(p)
	}
}
