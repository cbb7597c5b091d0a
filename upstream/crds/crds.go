// Package crds gives Karpenter's own CustomResourceDefinitions, as the AWS
// provider's CRD chart installs them (NodePool, NodeClaim, NodeOverlay and
// EC2NodeClass from the provider's module, CapacityBuffer from core's), so
// that tests against a real API server validate what karpsim writes with
// Karpenter's schemas and CEL rules rather than with copies.
package crds

import (
	"fmt"
	"os"
	"path/filepath"

	awsapis "github.com/aws/karpenter-provider-aws/pkg/apis"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	coreapis "sigs.k8s.io/karpenter/pkg/apis"
	"sigs.k8s.io/yaml"
)

// All returns deep copies of the CRDs the AWS provider installs: its own
// list, in its order, then core's CapacityBuffer, which the provider's
// chart ships beside them but its Go list leaves out.
func All() []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(awsapis.CRDs)+1)
	for _, crd := range awsapis.CRDs {
		out = append(out, crd.DeepCopy())
	}
	for _, crd := range coreapis.CRDs {
		if crd.Spec.Names.Kind == "CapacityBuffer" {
			out = append(out, crd.DeepCopy())
		}
	}
	return out
}

// Write writes each CRD to dir as NAME.yaml, where NAME is the CRD's
// metadata.name, and returns the paths written.
func Write(dir string) ([]string, error) {
	var paths []string
	for _, crd := range All() {
		crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
		data, err := yaml.Marshal(crd)
		if err != nil {
			return nil, fmt.Errorf("CRD %s: %w", crd.Name, err)
		}
		path := filepath.Join(dir, crd.Name+".yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
