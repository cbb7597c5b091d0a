package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/simulator"
)

// jobOptions are the flags of `karpsim sweep --emit-job`.
type jobOptions struct {
	emit        bool
	image       string
	name        string
	namespace   string
	shards      int
	parallelism int
	resultsPVC  string
}

func addJobFlags(cmd *cobra.Command, o *jobOptions) {
	f := cmd.Flags()
	f.BoolVar(&o.emit, "emit-job", false, "print a ConfigMap with the sweep and an Indexed Job that runs it in shards, instead of running it")
	f.StringVar(&o.image, "image", "", "with --emit-job: the container `IMAGE` holding the karpsim binary as its entrypoint's first argument")
	f.StringVar(&o.name, "job-name", "karpsim-sweep", "with --emit-job: the `NAME` of the Job and its ConfigMap")
	f.StringVar(&o.namespace, "namespace", "", "with --emit-job: the `NAMESPACE` of the Job and ConfigMap (default: kubectl's)")
	f.IntVar(&o.shards, "shards", 0, "with --emit-job: how many shards (completions) the sweep is cut into (`N`; default: --parallelism)")
	f.IntVar(&o.parallelism, "parallelism", 1, "with --emit-job: how many shards run at once (`P`)")
	f.StringVar(&o.resultsPVC, "results-pvc", "", "with --emit-job: a PersistentVolumeClaim (`NAME`) each shard writes its part to, as /results/part-I.json (default: each part is its pod's log)")
	for _, name := range []string{"image", "job-name", "namespace", "shards", "parallelism", "results-pvc"} {
		noCompletion(cmd, name)
	}
}

// sweepMaxShards bounds --shards, as Kubernetes bounds an Indexed Job's
// completions.
const sweepMaxShards = 100_000

// maxConfigMapBytes is the API server's limit on a ConfigMap's data.
const maxConfigMapBytes = 1 << 20

// runEmitJob prints the ConfigMap and the Job, as multi-document YAML.
func runEmitJob(opts sweepOptions, stdout io.Writer) error {
	o := opts.job
	switch {
	case o.image == "":
		return fmt.Errorf("%w: --emit-job needs --image", errUsage)
	case o.parallelism < 1:
		return fmt.Errorf("%w: --parallelism %d: want at least 1", errUsage, o.parallelism)
	case o.shards < 0:
		return fmt.Errorf("%w: --shards %d: want at least 1", errUsage, o.shards)
	case opts.shard != "":
		return fmt.Errorf("%w: --emit-job chooses the shards itself: leave out --shard", errUsage)
	}
	in, err := readSweep(opts.file)
	if err != nil {
		return err
	}
	if err := checkPackable(in); err != nil {
		return fmt.Errorf("%s: --emit-job: %w", opts.file, err)
	}
	shards := o.shards
	if shards == 0 {
		shards = o.parallelism
	}
	if shards > sweepMaxShards {
		return fmt.Errorf("%w: --shards %d: at most %d", errUsage, shards, sweepMaxShards)
	}
	cm, items, sweepPath, err := sweepConfigMap(o, in.files)
	if err != nil {
		return err
	}
	job := sweepJob(o, shards, sweepPath, cm, items)
	if err := writeYAML(stdout, cm); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(stdout, "---"); err != nil {
		return err
	}
	return writeYAML(stdout, job)
}

// sweepConfigMap holds every file the sweep read, keyed file-N; items
// place each key at the path the file has below the files' common folder,
// so that the sweep file's relative paths hold in the pod. It returns the
// sweep file's path there.
func sweepConfigMap(o jobOptions, files []string) (*corev1.ConfigMap, []corev1.KeyToPath, string, error) {
	abs := make([]string, len(files))
	for i, f := range files {
		a, err := filepath.Abs(f)
		if err != nil {
			return nil, nil, "", err
		}
		abs[i] = a
	}
	root := commonDir(abs)
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: o.name, Namespace: o.namespace, Labels: map[string]string{"app.kubernetes.io/name": "karpsim-sweep"}},
		Data:       map[string]string{},
	}
	var items []corev1.KeyToPath
	size := 0
	seen := map[string]bool{}
	for _, a := range abs {
		rel, err := filepath.Rel(root, a)
		if err != nil {
			return nil, nil, "", err
		}
		rel = filepath.ToSlash(rel)
		if seen[rel] {
			continue
		}
		seen[rel] = true
		data, err := os.ReadFile(a)
		if err != nil {
			return nil, nil, "", err
		}
		size += len(data)
		key := fmt.Sprintf("file-%d", len(items))
		cm.Data[key] = string(data)
		items = append(items, corev1.KeyToPath{Key: key, Path: rel})
	}
	if size > maxConfigMapBytes {
		return nil, nil, "", fmt.Errorf("the sweep's files hold %d bytes, more than a ConfigMap's %d: build them into the image instead", size, maxConfigMapBytes)
	}
	return cm, items, items[0].Path, nil
}

// commonDir is the deepest folder holding every path.
func commonDir(paths []string) string {
	dir := filepath.Dir(paths[0])
	for _, p := range paths[1:] {
		for dir != "/" && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			dir = filepath.Dir(dir)
		}
	}
	return dir
}

// sweepMount is where the pod finds the sweep's files.
const sweepMount = "/sweep"

// sweepJob is the Indexed Job: completion index I runs shard I/N of the
// sweep from the ConfigMap and prints its part, or writes it to the
// results volume.
func sweepJob(o jobOptions, shards int, sweepPath string, cm *corev1.ConfigMap, items []corev1.KeyToPath) *batchv1.Job {
	args := []string{"sweep", "-f", sweepMount + "/" + sweepPath, "--shard", fmt.Sprintf("$(SHARD_INDEX)/%d", shards), "-o", "json"}
	container := corev1.Container{
		Name:  "karpsim",
		Image: o.image,
		Args:  args,
		Env: []corev1.EnvVar{{Name: "SHARD_INDEX", ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "sweep", MountPath: sweepMount, ReadOnly: true}},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
	}
	volumes := []corev1.Volume{{Name: "sweep", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}, Items: items}}}}
	if o.resultsPVC != "" {
		container.Args = append(container.Args, "--output-file", "/results/part-$(SHARD_INDEX).json")
		container.VolumeMounts = append(container.VolumeMounts, corev1.VolumeMount{Name: "results", MountPath: "/results"})
		volumes = append(volumes, corev1.Volume{Name: "results", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: o.resultsPVC}}})
	}
	indexed := batchv1.IndexedCompletion
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: o.name, Namespace: o.namespace, Labels: cm.Labels},
		Spec: batchv1.JobSpec{
			CompletionMode:       &indexed,
			Completions:          ptr.To(int32(shards)),
			Parallelism:          ptr.To(int32(min(o.parallelism, shards))),
			BackoffLimitPerIndex: ptr.To(int32(1)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: cm.Labels},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{container}, Volumes: volumes},
			},
		},
	}
}

// checkPackable refuses a sweep whose manifests (files, a scenario's inline
// manifests and its steps') hold a kind karpsim does not read, or do not
// decode: the ConfigMap --emit-job prints holds what karpsim reads and
// nothing else, never a Secret that sat beside a NodePool.
func checkPackable(in *sweepInput) error {
	for _, src := range in.sources {
		for _, m := range src.Manifests {
			if err := onlyKindsRead(m.Name, m.Data); err != nil {
				return err
			}
		}
		sc, err := simulator.ParseScenario(src.Scenario)
		if err != nil {
			return fmt.Errorf("%s: %w", src.Path, err)
		}
		if err := onlyKindsRead(src.Path+": inline", []byte(sc.Inline)); err != nil {
			return err
		}
		for i, st := range sc.Steps {
			var manifest string
			switch {
			case st.NodePool != nil:
				manifest = st.NodePool.Manifest
			case st.NodeClass != nil:
				manifest = st.NodeClass.Manifest
			case st.Buffer != nil:
				manifest = st.Buffer.Manifest
			}
			if err := onlyKindsRead(fmt.Sprintf("%s: steps[%d] manifest", src.Path, i), []byte(manifest)); err != nil {
				return err
			}
		}
	}
	return nil
}

// onlyKindsRead refuses manifests that do not decode, or that hold an
// object of a kind karpsim skips, naming it.
func onlyKindsRead(name string, data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	set, err := manifests.DecodePart(name, data)
	if err != nil {
		return err
	}
	for _, w := range set.Warnings {
		if w.Skipped() {
			return fmt.Errorf("%w: %s: %s: karpsim does not read this kind, and the ConfigMap holds only what it reads: move it out of the sweep's files", errNotPacked, w.Source, w.Object)
		}
	}
	return nil
}

// errNotPacked is wrapped by --emit-job's refusals of what it will not pack.
var errNotPacked = errors.New("not packed into the ConfigMap")
