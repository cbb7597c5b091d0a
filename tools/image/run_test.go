package main

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/kube/kubetest"
)

// TestImageServesInACluster runs the image as the Deployment of
// deploy/kubernetes/serve.yaml does, without a container engine: the
// written tarball read back, its filesystem unpacked, and its entrypoint
// run chrooted there as the image's user (65532:65532), in its working
// directory with its environment, with the in-cluster configuration a pod
// gets (the service host and port, and the ServiceAccount karpsim's token
// and the cluster's CA at /var/run/secrets/kubernetes.io/serviceaccount),
// against a real kube-apiserver holding serve.yaml's objects and a
// cluster's. It checks /healthz, that serve becomes ready (a first
// evaluation with only the read-only ClusterRole's rights) and that its
// metrics tell the cluster's nodes. It skips, saying why, when not root
// (chroot and another user need it), without etcd and kube-apiserver,
// Karpenter's CRDs or kubectl.
func TestImageServesInACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; not with -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("running the image's entrypoint chrooted as uid 65532 needs root: run the test as root")
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl on PATH to apply deploy/kubernetes/serve.yaml with (apt-get install kubectl)")
	}
	s := kubetest.StartAPIServer(t)
	s.InstallCRDs(t)
	src, err := findSource(".")
	require.NoError(t, err)
	admin := s.Kubeconfig(t, "admin", kubetest.AdminToken)
	out, err := exec.Command(kubectl, "--kubeconfig", admin, "apply", "-f", filepath.Join(src, "deploy", "kubernetes", "serve.yaml")).CombinedOutput()
	require.NoError(t, err, "deploy/kubernetes/serve.yaml: %s", out)
	data, err := os.ReadFile(filepath.Join(src, "testdata", "disrupt", "do-not-disrupt-and-pdb", "input.yaml"))
	require.NoError(t, err)
	objs, err := kubetest.Objects(data)
	require.NoError(t, err)
	s.Create(t, objs...)
	ctx := context.Background()
	token, err := s.Admin.Core.CoreV1().ServiceAccounts("karpsim").CreateToken(ctx, "karpsim",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{}}, metav1.CreateOptions{})
	require.NoError(t, err, "a token of serve.yaml's ServiceAccount")

	img, err := tarball.ImageFromPath(writtenImage(t), nil)
	require.NoError(t, err)
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	root := filepath.Join(t.TempDir(), "rootfs")
	unpack(t, mutate.Extract(img), root)
	_, err = os.Stat(filepath.Join(root, "bin", "sh"))
	assert.True(t, os.IsNotExist(err), "no shell in the image")

	// What the kubelet mounts in the pod: the ServiceAccount's token, the
	// cluster's CA and the namespace, readable by the pod's user.
	secrets := filepath.Join(root, "var", "run", "secrets", "kubernetes.io", "serviceaccount")
	require.NoError(t, os.MkdirAll(secrets, 0o755))
	ca, err := os.ReadFile(filepath.Join(apiServerCertDir(t, s.URL), "apiserver.crt"))
	require.NoError(t, err)
	for name, content := range map[string][]byte{"token": []byte(token.Status.Token), "ca.crt": ca, "namespace": []byte("karpsim")} {
		require.NoError(t, os.WriteFile(filepath.Join(secrets, name), content, 0o644))
	}

	server, err := url.Parse(s.URL)
	require.NoError(t, err)
	listen := freeAddress(t)
	// The image's entrypoint with its command, serve's address moved to a
	// free loopback port: the test shares the machine's network.
	args := append([]string{}, cfg.Config.Entrypoint...)
	require.Equal(t, []string{"serve", "--listen", ":8080"}, cfg.Config.Cmd)
	args = append(args, "serve", "--listen", listen, "--debounce", "100ms")
	env := append([]string{}, cfg.Config.Env...)
	env = append(env, "HOME=/home/nonroot", "GOMEMLIMIT=900MiB",
		"KUBERNETES_SERVICE_HOST="+server.Hostname(), "KUBERNETES_SERVICE_PORT="+server.Port())
	var uid, gid uint32
	_, err = fmt.Sscanf(cfg.Config.User, "%d:%d", &uid, &gid)
	require.NoError(t, err, "USER %q", cfg.Config.User)
	var output bytes.Buffer
	cmd := &exec.Cmd{
		Path: args[0], Args: args, Env: env, Dir: cfg.Config.WorkingDir, Stdout: &output, Stderr: &output,
		SysProcAttr: &syscall.SysProcAttr{
			Chroot:     root,
			Credential: &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}},
			Pdeathsig:  syscall.SIGKILL,
		},
	}
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	base := "http://" + listen
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	wait := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for !ok() {
			select {
			case err := <-exited:
				t.Fatalf("the image's karpsim exited (%v) before %s: %s", err, what, output.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 90 s; karpsim said: %s", what, output.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	wait("/healthz answers", func() bool { code, _ := get("/healthz"); return code == http.StatusOK })
	wait("/readyz: a first evaluation", func() bool { code, _ := get("/readyz"); return code == http.StatusOK })
	code, metrics := get("/metrics")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, metrics, "\nkarpsim_view_stale 0\n")
	assert.Contains(t, metrics, `karpsim_node_not_disrupted{node="ip-10-0-1-10.ec2.internal",nodepool="default",reason="do-not-disrupt"} 1`)
	assert.Contains(t, output.String(), "the cluster karpsim runs in", "in-cluster configuration, as in a pod")

	// The process runs as the image's user.
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	require.NoError(t, err)
	assert.Regexp(t, fmt.Sprintf(`(?m)^Uid:\s+%d\s+%d`, uid, uid), string(status))
	assert.Regexp(t, fmt.Sprintf(`(?m)^Gid:\s+%d\s+%d`, gid, gid), string(status))
}

// apiServerCertDir is the directory kube-apiserver wrote its self-signed
// serving certificate to (kubetest's --cert-dir), found from its command
// line by its port.
func apiServerCertDir(t *testing.T, serverURL string) string {
	t.Helper()
	u, err := url.Parse(serverURL)
	require.NoError(t, err)
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	require.NoError(t, err)
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		var dir string
		port := false
		for i := 0; i+1 < len(args); i++ {
			switch args[i] {
			case "--cert-dir":
				dir = args[i+1]
			case "--secure-port":
				port = args[i+1] == u.Port()
			}
		}
		if port && dir != "" {
			return dir
		}
	}
	t.Fatalf("no kube-apiserver serving on port %s found", u.Port())
	return ""
}

// freeAddress is a loopback address with a free port.
func freeAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// unpack writes a flattened image filesystem under root with the entries'
// modes and owners, refusing any that would land outside it.
func unpack(t *testing.T, r io.ReadCloser, root string) {
	t.Helper()
	defer r.Close()
	require.NoError(t, os.MkdirAll(root, 0o755))
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		rel := filepath.Clean(h.Name)
		require.True(t, filepath.IsLocal(rel), "image entry %q outside the filesystem", h.Name)
		path := filepath.Join(root, rel)
		mode := h.FileInfo().Mode()
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(path, 0o755))
		case tar.TypeReg:
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			require.NoError(t, err)
			_, err = io.Copy(f, tr)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		default:
			t.Fatalf("image entry %q: type %c: the image has only directories and regular files", h.Name, h.Typeflag)
		}
		require.NoError(t, os.Lchown(path, h.Uid, h.Gid))
		// Chmod after chown, which clears set-id bits; the sticky bit of
		// /tmp is kept.
		require.NoError(t, os.Chmod(path, mode.Perm()|mode&(os.ModeSticky|os.ModeSetuid|os.ModeSetgid)))
	}
}
