package kube

import (
	"fmt"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Clients are the API clients Watcher and Writer use: the typed clientset
// for the built-in kinds, the dynamic client for Karpenter's.
type Clients struct {
	Core    kubernetes.Interface
	Dynamic dynamic.Interface
	// Server names the API server in errors ("https://10.0.0.1:6443");
	// empty for fake clients.
	Server string
}

// NewClients builds the clients for a REST config.
func NewClients(cfg *rest.Config) (Clients, error) {
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Clients{}, fmt.Errorf("kube: client for %s: %w", cfg.Host, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Clients{}, fmt.Errorf("kube: dynamic client for %s: %w", cfg.Host, err)
	}
	return Clients{Core: core, Dynamic: dyn, Server: cfg.Host}, nil
}
