package kube

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
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

// KubeconfigOptions say which kubeconfig and context to read, as kubectl's
// --kubeconfig and --context do.
type KubeconfigOptions struct {
	// Path is the kubeconfig file; empty means kubectl's rules: $KUBECONFIG,
	// else ~/.kube/config.
	Path string
	// Context is the context to use; empty means the kubeconfig's current
	// context.
	Context string
	// Timeout bounds each request; 0 means 30 seconds, so that an
	// unreachable server fails instead of hanging.
	Timeout time.Duration
}

// ErrKubeconfig is wrapped by the errors of a kubeconfig that cannot be
// used: missing, unreadable, without the context asked for.
var ErrKubeconfig = errors.New("kubeconfig")

// RESTConfig reads a kubeconfig. The error names the file and the context
// it could not use.
func RESTConfig(o KubeconfigOptions) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	where := "the default kubeconfig ($KUBECONFIG or ~/.kube/config)"
	if o.Path != "" {
		rules.ExplicitPath = o.Path
		where = o.Path
	}
	raw, err := rules.Load()
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrKubeconfig, where, err)
	}
	name := o.Context
	if name == "" {
		name = raw.CurrentContext
	}
	if name == "" {
		return nil, fmt.Errorf("%w %s: no current context: give --context", ErrKubeconfig, where)
	}
	if _, ok := raw.Contexts[name]; !ok {
		return nil, fmt.Errorf("%w %s: no context %q (contexts: %s)", ErrKubeconfig, where, name, contextNames(raw.Contexts))
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, name, &clientcmd.ConfigOverrides{}, rules).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%w %s: context %q: %w", ErrKubeconfig, where, name, err)
	}
	cfg.Timeout = o.Timeout
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	return cfg, nil
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

func contextNames[V any](m map[string]V) string {
	names := sortedNames(m)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
