package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/karpsim/karpsim/kube"
)

// Tokens of the API server's two users: Admin is in system:masters; Dev
// has no permission until a test binds it a role.
const (
	AdminToken = "karpsim-admin-token"
	DevToken   = "karpsim-dev-token"
)

// APIServer is an etcd and a kube-apiserver started for one test, on
// loopback ports, with no controller-manager and no scheduler: objects
// stay as the test writes them.
type APIServer struct {
	// URL is the server's address; Admin are clients as the admin user.
	URL   string
	Admin kube.Clients
	dir   string
	// apiserver is the kube-apiserver process, which Stop and Restart
	// replace.
	apiserver *process
}

// HowToInstall says how to get the servers the integration tests need.
const HowToInstall = "install etcd (apt-get install etcd-server) and build kube-apiserver with .ci/build-kube-apiserver " +
	"(cached in ~/.cache/karpsim; or set KARPSIM_KUBE_APISERVER to a kube-apiserver binary)"

// StartAPIServer starts etcd and kube-apiserver, or skips the test, saying
// why and how to install them, when either is missing. Both stop when the
// test ends.
func StartAPIServer(t testing.TB) *APIServer {
	t.Helper()
	etcd, apiserver := findServers()
	if etcd == "" || apiserver == "" {
		t.Skipf("no etcd or kube-apiserver here: %s", HowToInstall)
	}
	dir := t.TempDir()
	clientPort, peerPort, securePort := freePort(t), freePort(t), freePort(t)
	start(t, dir, "etcd", etcd,
		"--name", "default", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", "http://127.0.0.1:"+clientPort, "--advertise-client-urls", "http://127.0.0.1:"+clientPort,
		"--listen-peer-urls", "http://127.0.0.1:"+peerPort, "--initial-advertise-peer-urls", "http://127.0.0.1:"+peerPort,
		"--initial-cluster", "default=http://127.0.0.1:"+peerPort)
	key := filepath.Join(dir, "sa.key")
	writeKey(t, key)
	tokens := filepath.Join(dir, "tokens.csv")
	must(t, os.WriteFile(tokens, []byte(AdminToken+",admin,admin,system:masters\n"+DevToken+",dev,dev\n"), 0o600))
	s := &APIServer{URL: "https://127.0.0.1:" + securePort, dir: dir}
	s.apiserver = start(t, dir, "kube-apiserver", apiserver,
		"--etcd-servers", "http://127.0.0.1:"+clientPort, "--cert-dir", filepath.Join(dir, "certs"),
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", securePort,
		"--service-cluster-ip-range", "10.0.0.0/24", "--service-account-issuer", "https://karpsim.test",
		"--service-account-key-file", key, "--service-account-signing-key-file", key,
		"--token-auth-file", tokens, "--authorization-mode", "RBAC",
		"--disable-admission-plugins", "ServiceAccount")
	var err error
	if s.Admin, err = kube.NewClients(s.RESTConfig(AdminToken)); err != nil {
		t.Fatal(err)
	}
	s.waitReady(t)
	return s
}

// findServers finds etcd on PATH (or $KARPSIM_ETCD) and kube-apiserver at
// $KARPSIM_KUBE_APISERVER or in the cache .ci/build-kube-apiserver fills.
func findServers() (etcd, apiserver string) {
	etcd = os.Getenv("KARPSIM_ETCD")
	if etcd == "" {
		etcd, _ = exec.LookPath("etcd")
	}
	apiserver = os.Getenv("KARPSIM_KUBE_APISERVER")
	if apiserver == "" {
		cache := os.Getenv("KARPSIM_CACHE")
		if home, err := os.UserHomeDir(); cache == "" && err == nil {
			cache = filepath.Join(home, ".cache", "karpsim")
		}
		found, _ := filepath.Glob(filepath.Join(cache, "kube-apiserver-v*"))
		found = slices.DeleteFunc(found, func(p string) bool { return strings.HasSuffix(p, ".tmp") })
		if len(found) > 0 {
			slices.Sort(found)
			apiserver = found[len(found)-1]
		}
	}
	return etcd, apiserver
}

// process is a server the test started: its command line, its log and,
// while it runs, its process.
type process struct {
	path string
	args []string
	log  *os.File
	cmd  *exec.Cmd
}

// start runs a server until the test ends, its output in dir/name.log.
func start(t testing.TB, dir, name, path string, args ...string) *process {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, name+".log"))
	must(t, err)
	p := &process{path: path, args: args, log: log}
	p.run(t)
	t.Cleanup(func() {
		p.stop()
		log.Close()
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("%s log (last 2000 bytes):\n%s", name, out[max(0, len(out)-2000):])
		}
	})
	return p
}

func (p *process) run(t testing.TB) {
	t.Helper()
	p.cmd = exec.Command(p.path, p.args...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	must(t, p.cmd.Start())
}

func (p *process) stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.cmd = nil
}

// Stop kills kube-apiserver (etcd keeps running): clients get connection
// errors until Restart.
func (s *APIServer) Stop() { s.apiserver.stop() }

// Restart starts kube-apiserver again on the same address and etcd, and
// waits until it is ready: the objects are as they were.
func (s *APIServer) Restart(t testing.TB) {
	t.Helper()
	s.apiserver.stop()
	s.apiserver.run(t)
	s.waitReady(t)
}

func (s *APIServer) waitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		body, err := s.Admin.Core.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil && string(body) == "ok" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-apiserver not ready after 2 minutes: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// RESTConfig is a config for the user of token.
func (s *APIServer) RESTConfig(token string) *rest.Config {
	return &rest.Config{Host: s.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, Timeout: 30 * time.Second}
}

// Kubeconfig writes a kubeconfig for the user of token, its one context
// named context, and returns its path.
func (s *APIServer) Kubeconfig(t testing.TB, context, token string) string {
	t.Helper()
	path := filepath.Join(s.dir, context+".kubeconfig")
	must(t, os.WriteFile(path, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: %s
  user: {token: %q}
contexts:
- name: %s
  context: {cluster: test, user: %s}
current-context: %s
`, s.URL, context, token, context, context, context)), 0o600))
	return path
}

// CRDsEnv names the directory of Karpenter's own CRDs that InstallCRDs and
// InstallOptionalCRDs install, one NAME.yaml per CRD, as WriteCRDs writes
// them.
const CRDsEnv = "KARPSIM_KARPENTER_CRDS"

// WriteCRDs is the command that writes Karpenter's CRDs, from the Go modules
// of the versions karpsim follows, to the directory DIR that CRDsEnv names.
const WriteCRDs = "cd upstream && GOTOOLCHAIN=go1.27.3 go run ./cmd/karpenter-crds DIR"

// InstallCRDs creates Karpenter's own CRDs of NodePool, NodeClaim and
// EC2NodeClass, with their schemas and CEL rules, from the directory
// $KARPSIM_KARPENTER_CRDS, and waits until they are served. It skips the
// test, naming the command that writes them, when the variable is unset:
// an API-server test never passes on CRDs of our own.
func (s *APIServer) InstallCRDs(t testing.TB) {
	t.Helper()
	s.installCRDs(t, "nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws")
}

// InstallOptionalCRDs installs, as InstallCRDs does, the CRDs of the kinds
// a cluster may not serve, NodeOverlay and CapacityBuffer, and waits until
// they are served.
func (s *APIServer) InstallOptionalCRDs(t testing.TB) {
	t.Helper()
	s.installCRDs(t, "nodeoverlays.karpenter.sh", "capacitybuffers.autoscaling.x-k8s.io")
}

// KarpenterCRDs returns the directory $KARPSIM_KARPENTER_CRDS, or skips the
// test, saying how to write it, when the variable is unset.
func KarpenterCRDs(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(CRDsEnv)
	if dir == "" {
		t.Skipf("%s is not set: write Karpenter's CRDs with `%s` and set %s=DIR", CRDsEnv, WriteCRDs, CRDsEnv)
	}
	return dir
}

func (s *APIServer) installCRDs(t testing.TB, names ...string) {
	t.Helper()
	dir := KarpenterCRDs(t)
	var served []schema.GroupVersionResource
	for _, name := range names {
		path := filepath.Join(dir, name+".yaml")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("kubetest: %v (%s names a directory of Karpenter's CRDs: `%s` writes it)", err, CRDsEnv, WriteCRDs)
		}
		objs, err := Objects(data)
		if err != nil {
			t.Fatalf("kubetest: %s: %v", path, err)
		}
		for _, obj := range objs {
			crd, ok := obj.(*unstructured.Unstructured)
			if !ok || crd.GetKind() != "CustomResourceDefinition" || crd.GetName() != name {
				t.Fatalf("kubetest: %s holds %s, not the CustomResourceDefinition %s", path, obj.GetObjectKind().GroupVersionKind().Kind, name)
			}
			served = append(served, servedVersion(t, path, crd))
		}
		s.Create(t, objs...)
	}
	for _, r := range served {
		deadline := time.Now().Add(time.Minute)
		for {
			_, err := s.Admin.Dynamic.Resource(r).List(context.Background(), metav1.ListOptions{Limit: 1})
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not served a minute after its CRD was created: %v", r.Resource, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// servedVersion is the resource of a CRD's storage version.
func servedVersion(t testing.TB, path string, crd *unstructured.Unstructured) schema.GroupVersionResource {
	t.Helper()
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if stored, _ := m["storage"].(bool); stored {
			name, _ := m["name"].(string)
			return schema.GroupVersionResource{Group: group, Version: name, Resource: plural}
		}
	}
	t.Fatalf("kubetest: %s: the CRD %s has no storage version", path, crd.GetName())
	return schema.GroupVersionResource{}
}

// resources are the resources of the kinds Create writes.
var resources = map[string]schema.GroupVersionResource{
	"Namespace":                {Version: "v1", Resource: "namespaces"},
	"Pod":                      {Version: "v1", Resource: "pods"},
	"Node":                     {Version: "v1", Resource: "nodes"},
	"PersistentVolume":         {Version: "v1", Resource: "persistentvolumes"},
	"PersistentVolumeClaim":    {Version: "v1", Resource: "persistentvolumeclaims"},
	"PodDisruptionBudget":      {Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
	"DaemonSet":                {Group: "apps", Version: "v1", Resource: "daemonsets"},
	"StorageClass":             {Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"},
	"CSINode":                  {Group: "storage.k8s.io", Version: "v1", Resource: "csinodes"},
	"ClusterRole":              {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
	"ClusterRoleBinding":       {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
	"CustomResourceDefinition": {Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
	"NodePool":                 {Group: "karpenter.sh", Version: "v1", Resource: "nodepools"},
	"NodeClaim":                {Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"},
	"EC2NodeClass":             {Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"},
	"NodeOverlay":              {Group: "karpenter.sh", Version: "v1alpha1", Resource: "nodeoverlays"},
	"CapacityBuffer":           {Group: "autoscaling.x-k8s.io", Version: "v1beta1", Resource: "capacitybuffers"},
	"Service":                  {Version: "v1", Resource: "services"},
	"PodTemplate":              {Version: "v1", Resource: "podtemplates"},
	"Deployment":               {Group: "apps", Version: "v1", Resource: "deployments"},
	"ReplicaSet":               {Group: "apps", Version: "v1", Resource: "replicasets"},
	"StatefulSet":              {Group: "apps", Version: "v1", Resource: "statefulsets"},
	"DeviceClass":              {Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"},
	"ResourceClaim":            {Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"},
	"ResourceClaimTemplate":    {Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaimtemplates"},
	"ResourceSlice":            {Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"},
}

// Create creates objects as the admin, with their namespaces, and then
// sets the status of those that have one (the API server drops status on
// create). Server-set metadata (uid, resourceVersion, creationTimestamp)
// is dropped: the server sets its own.
func (s *APIServer) Create(t testing.TB, objs ...runtime.Object) {
	t.Helper()
	ctx := context.Background()
	for _, obj := range objs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		must(t, err)
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" {
			gvk, err := apiVersionOf(obj)
			must(t, err)
			u.SetGroupVersionKind(gvk)
		}
		gvr, ok := resources[u.GetKind()]
		if !ok {
			t.Fatalf("kubetest: Create does not know the kind %s", u.GetKind())
		}
		if ns := u.GetNamespace(); ns != "" {
			s.ensureNamespace(t, ns)
		}
		u.SetUID("")
		u.SetResourceVersion("")
		u.SetCreationTimestamp(metav1.Time{})
		status, hasStatus := u.Object["status"].(map[string]any)
		client := s.Admin.Dynamic.Resource(gvr).Namespace(u.GetNamespace())
		created, err := client.Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("kubetest: create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		if hasStatus && len(status) > 0 && u.GetKind() != "CustomResourceDefinition" {
			created.Object["status"] = status
			if _, err := client.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("kubetest: set status of %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		}
	}
}

func (s *APIServer) ensureNamespace(t testing.TB, name string) {
	t.Helper()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	_, err := s.Admin.Dynamic.Resource(resources["Namespace"]).Create(context.Background(), ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("kubetest: create namespace %s: %v", name, err)
	}
}

func apiVersionOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	gvks, _, err := clientScheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("kubetest: no kind for %T: %v", obj, err)
	}
	return gvks[0], nil
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

func writeKey(t testing.TB, path string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	must(t, err)
	must(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
