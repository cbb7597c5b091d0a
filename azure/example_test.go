package azure_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/azure"
)

// The D2s_v3 as the Azure provider offers it in West Europe to a node class
// with kubenet's default pods per node.
func ExampleCatalog() {
	c, err := azure.Catalog("westeurope", azure.Settings{NetworkPlugin: azure.NetworkPluginKubenet})
	if err != nil {
		panic(err)
	}
	it, _ := c.Get("Standard_D2s_v3")
	labels := it.Labels()
	fmt.Println(labels[azure.LabelSKUFamily], labels[azure.LabelSKUSeries], labels[azure.LabelSKUVersion])
	fmt.Println("pods:", it.Capacity.Get(corev1.ResourcePods))
	fmt.Println("kube-reserved:", it.Overhead.KubeReserved)
	fmt.Println("zones:", it.Requirements.Get("topology.kubernetes.io/zone").Values())
	fmt.Printf("on-demand: $%.3f/h\n", it.Offerings[0].Price)
	// Output:
	// D Ds_v3 3
	// pods: 110
	// kube-reserved: {"cpu":"100m","memory":"1843Mi"}
	// zones: [0 westeurope-1 westeurope-2 westeurope-3]
	// on-demand: $0.120/h
}
