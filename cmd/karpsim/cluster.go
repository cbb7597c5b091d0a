package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/kube"
	"github.com/karpsim/karpsim/kube/kubeconfig"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/snapshot"
)

// environment is what a command line reaches outside its arguments and
// streams: the cluster. Tests replace connect with fake clients.
type environment struct {
	// connect returns the clients of the cluster the flags name, and a
	// description of it for messages ("context kind-demo (https://…)").
	connect func(clusterOptions) (kube.Clients, string, error)
	// serveContext is serve's lifetime (default: until SIGINT or SIGTERM),
	// and listening, when set, is told the address serve listens on.
	serveContext func() (context.Context, context.CancelFunc)
	listening    func(addr string)
}

// defaultEnvironment connects through the kubeconfig.
var defaultEnvironment = environment{connect: connectKubeconfig, serveContext: signalContext}

// clusterOptions are the flags that read a live cluster instead of files,
// and those that change what is read: a NodePool edit and the catalog.
type clusterOptions struct {
	kubeconfig    string
	context       string
	nodePoolFiles []string
	catalog       string
	limits        limitOptions
	// inCluster reads the cluster karpsim runs in, through its service
	// account (serve, without --kubeconfig or --context, in a pod).
	inCluster bool
	// cloud is --cloud: the cloud of the default NodePool.
	cloud string
}

// readTimeout bounds reading a cluster: listing every kind once.
const readTimeout = 2 * time.Minute

// addClusterFlags adds --kubeconfig, --context, --nodepool-file and
// --catalog.
func addClusterFlags(cmd *cobra.Command, o *clusterOptions) {
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "read the objects from the cluster of this kubeconfig `PATH` instead of -f (read only: lists and watches, never writes)")
	f.StringVar(&o.context, "context", "", "the kubeconfig `CONTEXT` to read (default: the current context); implies reading the cluster")
	f.StringArrayVar(&o.nodePoolFiles, "nodepool-file", nil, "apply the NodePools, node classes (EC2NodeClasses, AKSNodeClasses) and NodeOverlays of this `PATH` over those read, by name, to see what a change would do, and its KubeSchedulerConfiguration (kube-scheduler's default spread); repeatable")
	f.StringVar(&o.catalog, "catalog", "", "take the instance types from this JSON catalog `FILE` (as instance-types -o json prints) instead of the embedded EC2 or Azure model")
	addCloudFlag(cmd, &o.cloud)
	addInputLimitFlags(cmd, &o.limits)
	must(cmd.MarkFlagFilename("kubeconfig"))
	must(cmd.MarkFlagFilename("nodepool-file", manifestExtensions...))
	must(cmd.MarkFlagFilename("catalog", "json"))
	noCompletion(cmd, "context")
}

// live is true when the cluster is read instead of files.
func (o clusterOptions) live() bool { return o.kubeconfig != "" || o.context != "" }

// check refuses -f together with a cluster.
func (o clusterOptions) check(files []string) error {
	if o.live() && len(files) > 0 {
		return fmt.Errorf("%w: -f and --kubeconfig/--context both say what to read: give one", errUsage)
	}
	if slices.Contains(o.nodePoolFiles, "") || slices.Contains(o.nodePoolFiles, stdinPath) {
		return fmt.Errorf("%w: --nodepool-file takes a file or folder", errUsage)
	}
	if err := checkCloud(o.cloud); err != nil {
		return err
	}
	return o.limits.check(false)
}

// connectKubeconfig builds clients from the kubeconfig.
func connectKubeconfig(o clusterOptions) (kube.Clients, string, error) {
	if o.inCluster {
		cfg, err := kubeconfig.InCluster()
		if err != nil {
			return kube.Clients{}, "", err
		}
		clients, err := kube.NewClients(cfg)
		if err != nil {
			return kube.Clients{}, "", err
		}
		return clients, fmt.Sprintf("the cluster karpsim runs in (%s)", cfg.Host), nil
	}
	cfg, name, err := kubeconfig.Load(kubeconfig.Options{Path: o.kubeconfig, Context: o.context})
	if err != nil {
		return kube.Clients{}, "", err
	}
	clients, err := kube.NewClients(cfg)
	if err != nil {
		return kube.Clients{}, "", err
	}
	return clients, fmt.Sprintf("context %s (%s)", name, cfg.Host), nil
}

// readCluster lists the cluster's objects through kube.Watcher, once every
// kind has synced, into a Set: the same Set -f gives for a dump of the same
// objects, so that every command decides and prints the same. It writes
// nothing to the cluster.
func readCluster(env environment, o clusterOptions, command string, stderr io.Writer) (*manifests.Set, string, error) {
	// client-go logs retries through klog; the error returned says it all.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	clients, where, err := env.connect(o)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	w := kube.NewWatcher(clients, kube.WatcherConfig{})
	if err := w.Start(ctx); err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", where, err)
	}
	defer w.Stop()
	s, err := w.State()
	if err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", where, err)
	}
	fmt.Fprintf(stderr, "karpsim %s: read %s, %s, %s, %s, %s, %s and %s from %s\n", command,
		plural(len(s.Pods), "pod"), plural(len(s.Nodes), "node"), plural(len(s.NodeClaims), "NodeClaim"),
		plural(len(s.NodePools), "NodePool"), plural(len(s.EC2NodeClasses), "EC2NodeClass"),
		plural(len(s.PDBs), "PodDisruptionBudget"), plural(len(s.DaemonSets), "DaemonSet"), where)
	set := simulator.StateSet(s)
	if n := len(s.NodeOverlays) + len(s.CapacityBuffers) + len(s.ResourceClaims); n > 0 {
		fmt.Fprintf(stderr, "karpsim %s: read %s, %s and %s from %s\n", command, plural(len(s.NodeOverlays), "NodeOverlay"),
			plural(len(s.CapacityBuffers), "CapacityBuffer"), plural(len(s.ResourceClaims), "ResourceClaim"), where)
	}
	if skipped := w.Skipped(); len(skipped) > 0 {
		fmt.Fprintf(stderr, "karpsim %s: read as none from %s: %s\n", command, where, strings.Join(skipped, "; "))
	}
	return set, "cluster " + where, nil
}

// applyNodePoolFiles puts the NodePools, node classes and NodeOverlays of the files
// over the Set's, by name, saying on stderr what each replaces or adds.
func applyNodePoolFiles(set *manifests.Set, files []string, command string, stderr io.Writer) error {
	for _, path := range files {
		edit, err := readPart(path)
		if err != nil {
			return err
		}
		if len(edit.NodePools)+len(edit.EC2NodeClasses)+len(edit.AKSNodeClasses)+len(edit.NodeOverlays) == 0 && edit.SchedulerConfig == nil {
			return fmt.Errorf("--nodepool-file %s: no NodePool, EC2NodeClass, NodeOverlay or KubeSchedulerConfiguration in it", path)
		}
		for _, w := range edit.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		for _, np := range edit.NodePools {
			set.NodePools = replaceNamed(set.NodePools, np, func(o *apis.NodePool) string { return o.Name })
			fmt.Fprintf(stderr, "karpsim %s: --nodepool-file %s: NodePool %s applied\n", command, path, np.Name)
		}
		for _, nc := range edit.EC2NodeClasses {
			set.EC2NodeClasses = replaceNamed(set.EC2NodeClasses, nc, func(o *apis.EC2NodeClass) string { return o.Name })
			fmt.Fprintf(stderr, "karpsim %s: --nodepool-file %s: EC2NodeClass %s applied\n", command, path, nc.Name)
		}
		for _, nc := range edit.AKSNodeClasses {
			set.AKSNodeClasses = replaceNamed(set.AKSNodeClasses, nc, func(o *apis.AKSNodeClass) string { return o.Name })
			fmt.Fprintf(stderr, "karpsim %s: --nodepool-file %s: AKSNodeClass %s applied\n", command, path, nc.Name)
		}
		for _, o := range edit.NodeOverlays {
			set.NodeOverlays = replaceNamed(set.NodeOverlays, o, func(o *apis.NodeOverlay) string { return o.Name })
			fmt.Fprintf(stderr, "karpsim %s: --nodepool-file %s: NodeOverlay %s applied\n", command, path, o.Name)
		}
		// kube-scheduler's configuration is a file on its host, never an
		// object of the API: given here, it gives the cluster's pods their
		// default spread constraints.
		if edit.SchedulerConfig != nil {
			set.SchedulerConfig = edit.SchedulerConfig
			fmt.Fprintf(stderr, "karpsim %s: --nodepool-file %s: KubeSchedulerConfiguration applied\n", command, path)
		}
	}
	// The overlays' label keys follow the NodePools' clouds, which the
	// files may have changed.
	if len(files) > 0 {
		if err := manifests.CheckOverlayLabels(set); err != nil {
			return fmt.Errorf("--nodepool-file: %w", err)
		}
	}
	return nil
}

// readPart reads a NodePool edit, whose EC2NodeClass may be the cluster's.
func readPart(path string) (*manifests.Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--nodepool-file: %w", err)
	}
	return manifests.DecodePart(path, data)
}

// replaceNamed replaces the object of obj's name in list, or adds obj.
func replaceNamed[T any](list []T, obj T, name func(T) string) []T {
	out := slices.Clone(list)
	if i := slices.IndexFunc(out, func(o T) bool { return name(o) == name(obj) }); i >= 0 {
		out[i] = obj
		return out
	}
	return append(out, obj)
}

// catalogOptions sets the catalog of the snapshot options from --catalog,
// and says on stderr where instance types come from when the objects came
// from a cluster: they never do come from it.
func catalogOptions(o clusterOptions, opts *snapshot.Options, command string, stderr io.Writer) error {
	opts.Cloud = o.cloud
	if o.catalog != "" {
		f, err := os.Open(o.catalog)
		if err != nil {
			return err
		}
		defer f.Close()
		catalog, err := instancetypes.ReadJSON(f, o.catalog)
		if err != nil {
			return err
		}
		opts.Catalog = func(*apis.EC2NodeClass) (instancetypes.Catalog, error) { return catalog, nil }
		opts.Azure.CatalogFor = func(*apis.AKSNodeClass) (instancetypes.Catalog, error) { return catalog, nil }
	}
	if !o.live() {
		return nil
	}
	if o.catalog != "" {
		fmt.Fprintf(stderr, "karpsim %s: instance types and prices from the catalog %s, not from the cluster or the cloud\n", command, o.catalog)
	} else {
		fmt.Fprintf(stderr, "karpsim %s: instance types and prices from karpsim's embedded EC2 model, not from the cluster or the cloud (--catalog reads others)\n", command)
	}
	return nil
}

// loadObjects reads what a command decides on: the cluster, or the -f
// paths (or, when neither is given, what fallback returns), then the
// NodePool edits. origin names the cluster in errors; empty for files.
func loadObjects(env environment, o clusterOptions, files []string, command string, stdin io.Reader, stderr io.Writer, fallback func() (*manifests.Set, error)) (set *manifests.Set, origin string, err error) {
	switch {
	case o.live():
		set, origin, err = readCluster(env, o, command, stderr)
	case len(files) == 0 && fallback != nil:
		set, err = fallback()
	default:
		set, err = loadManifests(files, o.limits, stdin, stderr)
	}
	if err != nil {
		return nil, "", err
	}
	for _, w := range set.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	set.Warnings = nil
	if err := applyNodePoolFiles(set, o.nodePoolFiles, command, stderr); err != nil {
		return nil, "", err
	}
	return set, origin, nil
}
