// Package kubeconfig reads a kubeconfig file into the REST config
// package kube's clients take, with errors that name the file and the
// context. It is apart from kube because client-go's kubeconfig loader
// links github.com/spf13/pflag: a program that has a REST config already
// (rest.InClusterConfig, say) imports kube without it.
package kubeconfig

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options say which kubeconfig and context to read, as kubectl's
// --kubeconfig and --context do.
type Options struct {
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

// ErrInvalid is wrapped by the errors of a kubeconfig that cannot be
// used: missing, unreadable, without the context asked for.
var ErrInvalid = errors.New("kubeconfig")

// Load reads a kubeconfig and returns the REST config of the context
// asked for (or the current one) and that context's name. The error names
// the file and the context it could not use.
func Load(o Options) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	where := "the default kubeconfig ($KUBECONFIG or ~/.kube/config)"
	if o.Path != "" {
		rules.ExplicitPath = o.Path
		where = o.Path
	}
	raw, err := rules.Load()
	if err != nil {
		return nil, "", fmt.Errorf("%w %s: %w", ErrInvalid, where, err)
	}
	name := o.Context
	if name == "" {
		name = raw.CurrentContext
	}
	if name == "" {
		return nil, "", fmt.Errorf("%w %s: no current context: give --context", ErrInvalid, where)
	}
	if _, ok := raw.Contexts[name]; !ok {
		return nil, "", fmt.Errorf("%w %s: no context %q (contexts: %s)", ErrInvalid, where, name, contextNames(raw.Contexts))
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, name, &clientcmd.ConfigOverrides{}, rules).ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("%w %s: context %q: %w", ErrInvalid, where, name, err)
	}
	cfg.Timeout = o.Timeout
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	return cfg, name, nil
}

func contextNames[V any](m map[string]V) string {
	names := slices.Sorted(maps.Keys(m))
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// InCluster returns the REST config of the pod karpsim runs in (its
// service account's token and the API server's address from the
// environment), with Timeout's default of 30 seconds a request.
func InCluster() (*rest.Config, error) {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: in-cluster config: %w", ErrInvalid, err)
	}
	cfg.Timeout = 30 * time.Second
	return cfg, nil
}
