package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/karpsim/karpsim/advisor"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/kube"
	"github.com/karpsim/karpsim/snapshot"
)

// serveOptions are serve's flags.
type serveOptions struct {
	cluster    clusterOptions
	listen     string
	debounce   time.Duration
	period     time.Duration
	spotToSpot bool
	// gates is --feature-gates, awsGates --aws-feature-gates.
	gates, awsGates string
}

func newServeCommand(env environment) *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Advise on a live cluster all day: a page, JSON and Prometheus metrics (read only)",
		Long: `serve watches a cluster (the kubeconfig's, or the one it runs in) and keeps karpsim's answers
current: after every change (debounced) and on a period it re-plans the pending pods, re-evaluates
what Karpenter's disruption controller would do now with every node and why, and, on the period,
weighs the managed nodes against Karpenter's plan from scratch, the optimizer's and the lower bound.
It only lists and watches: it never writes to the cluster.

It serves on --listen:
  /             the live page: a row per node (type, capacity, $/h, requested CPU and memory,
                age, what Karpenter would do with it and why), the pending pods and the advice
  /api/status   the same as JSON
  /metrics      Prometheus metrics (karpsim_*; docs/serve.md lists them)
  /healthz      the process answers; /readyz: a first evaluation succeeded

While the API server does not answer, the view is marked stale (on the page and in
karpsim_view_stale); informers relist when it is back, and the advisor evaluates at once.`,
		Example: `  # Serve on :8080 for the current kubeconfig context
  karpsim serve --kubeconfig ~/.kube/config

  # Another context of the kubeconfig, on another port (in a pod, without
  # --kubeconfig or --context, it watches the cluster it runs in: see deploy/)
  karpsim serve --context prod --listen :9090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			return runServe(env, opts, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.cluster.kubeconfig, "kubeconfig", "", "watch the cluster of this kubeconfig `PATH` (default: in a pod, the cluster it runs in; else $KUBECONFIG or ~/.kube/config)")
	f.StringVar(&opts.cluster.context, "context", "", "the kubeconfig `CONTEXT` to watch (default: the current context)")
	f.StringVar(&opts.cluster.catalog, "catalog", "", "take the instance types from this JSON catalog `FILE` instead of the embedded EC2 model")
	f.StringVar(&opts.listen, "listen", ":8080", "serve on this `HOST:PORT`")
	f.DurationVar(&opts.debounce, "debounce", time.Second, "evaluate this long after a change, folding in the changes meanwhile (`DURATION`)")
	f.DurationVar(&opts.period, "period", time.Minute, "evaluate this often without a change, and weigh the cluster against the optimizer and the lower bound (`DURATION`)")
	f.BoolVar(&opts.spotToSpot, "spot-to-spot", false, "consolidate spot nodes into cheaper spot nodes, as Karpenter's SpotToSpotConsolidation feature gate does")
	f.StringVar(&opts.gates, "feature-gates", "", featureGatesUsage)
	f.StringVar(&opts.awsGates, "aws-feature-gates", "", awsRepairFeatureGatesUsage)
	addInputLimitFlags(cmd, &opts.cluster.limits)
	must(cmd.MarkFlagFilename("kubeconfig"))
	must(cmd.MarkFlagFilename("catalog", "json"))
	noCompletion(cmd, "context", "listen", "debounce", "period")
	return cmd
}

// The bounds of serve's durations: a debounce long enough to fold a burst
// and short enough to answer; a period that lets an evaluation finish.
const (
	minDebounce = 10 * time.Millisecond
	maxDebounce = 10 * time.Minute
	minPeriod   = time.Second
	maxPeriod   = 24 * time.Hour
)

func (opts serveOptions) check() error {
	if opts.debounce < minDebounce || opts.debounce > maxDebounce {
		return fmt.Errorf("%w: --debounce %s: give %s to %s", errUsage, opts.debounce, minDebounce, maxDebounce)
	}
	if opts.period < minPeriod || opts.period > maxPeriod {
		return fmt.Errorf("%w: --period %s: give %s to %s", errUsage, opts.period, minPeriod, maxPeriod)
	}
	if opts.listen == "" {
		return fmt.Errorf("%w: --listen: give HOST:PORT", errUsage)
	}
	if _, err := parseFeatureGates(opts.gates); err != nil {
		return err
	}
	if _, err := parseAWSFeatureGates(opts.awsGates); err != nil {
		return err
	}
	return opts.cluster.limits.check(false)
}

// runServe watches the cluster and serves the advisor until the process is
// interrupted (or the environment's context ends).
func runServe(env environment, opts serveOptions, stderr io.Writer) error {
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	if !opts.cluster.live() && os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		opts.cluster.inCluster = true
	}
	clients, where, err := env.connect(opts.cluster)
	if err != nil {
		return err
	}
	gates, err := parseFeatureGates(opts.gates)
	if err != nil {
		return err
	}
	awsGates, err := parseAWSFeatureGates(opts.awsGates)
	if err != nil {
		return err
	}
	snapOpts := snapshot.Options{Origin: "cluster " + where, MaxPods: opts.cluster.limits.pods, NodeClassCEL: awsGates.nodeClassCEL}
	if err := catalogOptions(clusterOptions{catalog: opts.cluster.catalog}, &snapOpts, "serve", stderr); err != nil {
		return err
	}
	var disruption consolidation.Options
	if err := gates.apply(&disruption, opts.cluster.cloud, awsGates); err != nil {
		return err
	}
	ctx, stop := env.serveContext()
	defer stop()
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", opts.listen, err)
	}
	w := kube.NewWatcher(clients, kube.WatcherConfig{})
	fmt.Fprintf(stderr, "karpsim serve: reading %s\n", where)
	if err := w.Start(ctx); err != nil {
		ln.Close()
		return fmt.Errorf("reading %s: %w", where, err)
	}
	defer w.Stop()
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "karpsim serve: %s: %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
	a := advisor.New(w, advisor.Config{
		Options:  advisor.Options{Snapshot: snapOpts, SpotToSpot: opts.spotToSpot, Disruption: disruption},
		Debounce: opts.debounce, Period: opts.period, Probe: probe(clients), Logf: logf,
	})
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "karpsim serve: serving on http://%s (read only: it never writes to the cluster)\n", ln.Addr())
	if env.listening != nil {
		env.listening(ln.Addr().String())
	}
	runErr := make(chan error, 1)
	go func() { runErr <- a.Run(ctx) }()
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	stop()
	<-runErr
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving on %s: %w", opts.listen, err)
	}
	fmt.Fprintln(stderr, "karpsim serve: stopped")
	return nil
}

// probe asks the API server for its readiness, or its version through
// fake clients (which have no REST client).
func probe(c kube.Clients) func(context.Context) error {
	return func(ctx context.Context) error {
		if rc := c.Core.Discovery().RESTClient(); rc != nil {
			return rc.Get().AbsPath("/readyz").Do(ctx).Error()
		}
		_, err := c.Core.Discovery().ServerVersion()
		return err
	}
}

// signalContext ends at SIGINT or SIGTERM: serve's lifetime in a process.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
