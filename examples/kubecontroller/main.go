// Command kubecontroller runs Karpenter's loop (package controller) against
// a real cluster: controller.Runner reads the cluster through kube.Watcher
// (shared informers) and writes NodeClaims, taints and drains through
// kube.Writer, launching through a cloud.Launcher the caller supplies.
//
// It is safe by default: the writer sends every write with server-side dry
// run (the API server admits and validates it, and stores nothing), and the
// launcher of this program launches nothing: it prints what it was asked
// to launch or terminate. --apply turns dry run off for the cluster writes;
// launching real instances needs a Launcher for your cloud in place of
// printLauncher.
//
// The NodeClaims it writes pass Karpenter's own CRDs, schema and CEL rules
// (TestRunAgainstARealAPIServer runs it against a kube-apiserver holding
// them). The instances printLauncher reports never join, so each claim
// stays in flight: pending pods get one launch, not one every retry.
//
//	go run ./examples/kubecontroller --context my-cluster            # dry run, until Ctrl-C
//	go run ./examples/kubecontroller --context my-cluster --for 1m   # dry run, one minute
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/kube"
	"github.com/karpsim/karpsim/kube/kubeconfig"
)

func main() {
	if err := runMain(); err != nil {
		fmt.Fprintln(os.Stderr, "kubecontroller:", err)
		os.Exit(1)
	}
}

func runMain() error {
	var (
		path, kubeContext string
		apply             bool
		duration          time.Duration
	)
	flag.StringVar(&path, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	flag.StringVar(&kubeContext, "context", "", "kubeconfig context (default: the current one)")
	flag.BoolVar(&apply, "apply", false, "write to the cluster for real instead of with server-side dry run")
	flag.DurationVar(&duration, "for", 0, "stop after this long (default: until interrupted)")
	flag.Parse()

	cfg, _, err := kubeconfig.Load(kubeconfig.Options{Path: path, Context: kubeContext})
	if err != nil {
		return err
	}
	clients, err := kube.NewClients(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, duration)
		defer cancel()
	}
	return run(ctx, Config{Clients: clients, Apply: apply, Launcher: &printLauncher{out: os.Stdout}}, os.Stdout)
}

// Config is what run needs: the cluster, the launcher, and whether to
// write for real.
type Config struct {
	Clients  kube.Clients
	Launcher cloud.Launcher
	// Apply turns server-side dry run off: NodeClaims are created, nodes
	// tainted and drained, for real.
	Apply bool
	// Timings are the loop's intervals; the zero value is Karpenter's.
	Timings controller.Timings
}

// run watches the cluster until it is synced, then runs the loop until ctx
// is done, printing each decision. A step that fails (a write the API
// server refuses, say) is printed and retried, as a controller would.
func run(ctx context.Context, cfg Config, out io.Writer) error {
	watcher := kube.NewWatcher(cfg.Clients, kube.WatcherConfig{})
	if err := watcher.Start(ctx); err != nil {
		return err
	}
	defer watcher.Stop()
	writer := kube.NewWriter(cfg.Clients, kube.WriterConfig{FieldManager: "karpsim-kubecontroller", DryRun: !cfg.Apply})
	mode := "dry run: writes are sent with dryRun=All and stored nowhere"
	if cfg.Apply {
		mode = "applying: writes change the cluster"
	}
	s := watcher.Snapshot()
	fmt.Fprintf(out, "synced: %d pods, %d nodes, %d NodePools (%s)\n", len(s.Pods), len(s.Nodes), len(s.NodePools), mode)

	var mu sync.Mutex
	runner, err := controller.NewRunner(controller.RunnerConfig{
		Watcher: watcher, Writer: writer, Launcher: cfg.Launcher, Timings: cfg.Timings,
		Record: func(d controller.Decision) {
			mu.Lock()
			defer mu.Unlock()
			what := strings.TrimSpace(d.InstanceType + " " + d.CapacityType)
			fmt.Fprintf(out, "decision: %s %v %s: %s\n", d.Kind, d.Nodes, what, d.Reason)
		},
		OnError: func(err error) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(out, "error (retrying):", err)
		},
	})
	if err != nil {
		return err
	}
	defer runner.Close()
	// Run returns only with an error: ctx's when it is done.
	if err := runner.Run(ctx); ctx.Err() == nil {
		return err
	}
	return nil
}

// printLauncher is a cloud.Launcher that launches nothing: it prints each
// request and answers with an instance that never joins the cluster.
// Replace it with your cloud's launcher to launch for real.
type printLauncher struct {
	mu  sync.Mutex
	out io.Writer
}

func (l *printLauncher) Create(_ context.Context, req cloud.LaunchRequest) (cloud.Instance, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.out, "launch (not done): NodeClaim %s: %s %s in %s, $%.4f/h\n", req.NodeClaim, req.CapacityType, req.InstanceType, req.Zone, req.PricePerHour)
	never := time.Now().Add(100 * 365 * 24 * time.Hour)
	return cloud.Instance{ID: "not-launched/" + req.NodeClaim, NodeClaim: req.NodeClaim, InstanceType: req.InstanceType, Zone: req.Zone,
		CapacityType: req.CapacityType, PricePerHour: req.PricePerHour, LaunchedAt: time.Now(), RegisteredAt: never, InitializedAt: never}, nil
}

func (l *printLauncher) Delete(_ context.Context, id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.out, "terminate (not done): %s\n", id)
	return nil
}
